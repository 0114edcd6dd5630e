import { describe, expect, it } from 'vitest';
import { keyPath, pipelinesOf, projectsOf, treeOf } from './config-projects';

const key = (k: string, value: unknown, source = 'file') => ({ key: k, value, source });

describe('projects from GET /api/config keys', () => {
  it('splits dotted keys with indexes', () => {
    expect(keyPath('projects.shop.repos[0].url')).toEqual(['projects', 'shop', 'repos', 0, 'url']);
    expect(keyPath('a[1][2].b')).toEqual(['a', 1, 2, 'b']);
  });

  it('rebuilds the tree, arrays where indexes are', () => {
    expect(treeOf([key('projects.shop.repos[1].name', 'b'), key('projects.shop.repos[0].name', 'a'), key('queue.x', 1)]))
      .toEqual({ projects: { shop: { repos: [{ name: 'a' }, { name: 'b' }] } }, queue: { x: 1 } });
  });

  it('describes each project: tracker, repositories, triggers, pipelines, sources', () => {
    const projects = projectsOf({
      keys: [
        key('projects.shop.tracker', 'platform-a'),
        key('projects.shop.repos[0].name', 'web'), key('projects.shop.repos[0].platform', 'platform-a'),
        key('projects.shop.repos[0].url', 'https://github.com/acme/web'), key('projects.shop.repos[0].auth_secret', '${SHOP_TOKEN}'),
        key('projects.shop.platform_a_trigger.trigger_statuses', ['agent']),
        key('projects.shop.platform_a_trigger.pipeline_from_label', { 'lint-me': 'lint' }),
        key('projects.shop.platform_a_trigger.default_pipeline', 'code', 'store'),
        key('projects.shop.platform_a_trigger.polling.enabled', true),
        key('projects.bill.tracker', 'platform-d'),
        key('projects.bill.platform_d_trigger.site_url', 'https://acme.atlassian.net'),
        key('projects.bill.platform_d_trigger.project_key', 'BILL'),
        key('pipelines.lint.commands', ['npm run lint']),
      ],
    });
    expect(projects.map((p) => p.name)).toEqual(['bill', 'shop']);
    expect(projects[1]).toEqual({
      name: 'shop', tracker: 'platform-a',
      repos: [{ name: 'web', platform: 'platform-a', url: 'https://github.com/acme/web', apiUrl: null, branch: null }],
      triggers: [{ platform: 'platform-a', statuses: ['agent'], labels: { 'lint-me': 'lint' }, defaultPipeline: 'code', polling: true, where: null }],
      pipelines: ['code', 'lint'], sources: ['store', 'file'],
    });
    expect(projects[0]!.triggers[0]!.where).toBe('https://acme.atlassian.net · BILL');
    expect(projects[0]!.repos).toEqual([]);
  });

  it('is empty without projects, and lists the built-in and configured pipelines', () => {
    expect(projectsOf({ keys: [key('queue.max_parallel_runs', 4)] })).toEqual([]);
    expect(pipelinesOf({ keys: [key('pipelines.lint.commands', ['x']), key('pipelines.fmt.publish', 'none')] })).toEqual(['code', 'security-scan', 'pr-review', 'fmt', 'lint']);
  });
});
