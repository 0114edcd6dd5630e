import { describe, expect, it } from 'vitest';
import type { Run } from '../runs/resource/run-resource.js';
import { DashboardLinks, answerButtons, decodeAnswer, runStatusContent } from './run-status-text.js';

const base: Run = {
  id: '6f1c2a3b-0000-4000-8000-000000000001', project: 'shop', ticket: '42', ticketUrl: null, platform: 'platform-a', pipeline: 'code', state: 'queued',
  createdAt: '2026-01-01T00:00:00Z', startedAt: null, finishedAt: null, error: null, sandboxes: [], steps: [],
  usage: { modelCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 }, pullRequests: [], target: null,
} as unknown as Run;
const links = new DashboardLinks('https://pipeline.example/');

describe('a followed run\'s one message', () => {
  it('says admitted or queued with its position, then the running step, with the run page linked', () => {
    expect(runStatusContent(base, links).text).toBe('⏳ **code** on shop/42: admitted, waiting for a worker — [run 6f1c2a3b](https://pipeline.example/runs/6f1c2a3b-0000-4000-8000-000000000001)');
    expect(runStatusContent(base, links, { position: 3 }).text).toContain('queued for capacity (position 3)');
    const running = { ...base, state: 'running', steps: [{ name: 'prepare', state: 'succeeded', startedAt: '', finishedAt: '' }, { name: 'agent', state: 'running', startedAt: '', finishedAt: null }] } as Run;
    expect(runStatusContent(running, links).text).toContain('running step **agent**');
  });

  it('ends Done with the pull requests, or Failed with the one-line reason; without a dashboard address it shows the path', () => {
    const done = { ...base, state: 'succeeded', pullRequests: [{ repo: 'shop-web', url: 'https://github.com/acme/shop-web/pull/7', number: 7, state: 'open' }] } as Run;
    expect(runStatusContent(done, links).text).toContain('Done — pull request [shop-web#7](https://github.com/acme/shop-web/pull/7)');
    const failed = { ...base, state: 'failed', error: '\n  tests stay red\nsecond line' } as Run;
    expect(runStatusContent(failed, new DashboardLinks(null)).text).toBe('❌ **code** on shop/42: Failed — tests stay red — run 6f1c2a3b (`/runs/6f1c2a3b-0000-4000-8000-000000000001`)');
  });

  it('parked: the whole question quoted, with its listed options (else Yes and No) as answer buttons for that run', () => {
    const parked = { ...base, state: 'parked', error: 'Which form?' } as Run;
    const content = runStatusContent(parked, links, { question: 'Which form?\n- Formal\n- Informal' });
    expect(content.text).toContain('> Which form?\n> - Formal');
    expect(content.buttons.map((b) => b.label)).toEqual(['Formal', 'Informal']);
    expect(decodeAnswer(content.buttons[1]!.value)).toEqual({ run: base.id, answer: 'Informal' });
    expect(answerButtons(base.id, 'Proceed?').map((b) => b.label)).toEqual(['Yes', 'No']);
    expect(decodeAnswer('not json')).toBeNull();
  });
});
