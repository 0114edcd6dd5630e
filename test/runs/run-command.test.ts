import { AGENTS_REFUSED } from '../../src/pipelines/pipeline-catalog.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/cli/run.command.js';
import { type RunTestSetup, createRunTestSetup } from './support/run-test-setup.js';

let setup: RunTestSetup;

beforeAll(async () => {
  setup = await createRunTestSetup();
});

afterAll(async () => {
  await setup?.cleanup();
});

describe('pipeline-service run', () => {
  it('runs a command pipeline in-process and reports success', async () => {
    const lines: string[] = [];
    expect(await runPipeline(setup.env, { pipeline: 'hello', project: 'solo', ticket: '5' }, (l) => lines.push(l))).toBe(true);
    expect(lines).toContain('[solo-web] hello from solo-web');
    expect(lines.at(-1)).toBe('pipeline hello succeeded');
  });

  it('reports failure for a failing pipeline, a built-in agent pipeline the in-process backend refuses and an unknown project', async () => {
    const lines: string[] = [];
    expect(await runPipeline(setup.env, { pipeline: 'broken', project: 'solo', ticket: null }, (l) => lines.push(l))).toBe(false);
    expect(lines.at(-1)).toBe('pipeline broken failed: `exit 3` exited with code 3 in sandbox solo-web');
    expect(await runPipeline(setup.env, { pipeline: 'security-scan', project: 'solo', ticket: null }, (l) => lines.push(l))).toBe(false);
    expect(lines.at(-1)).toBe(`pipeline security-scan failed: ${AGENTS_REFUSED}`);
    expect(await runPipeline(setup.env, { pipeline: 'hello', project: 'nowhere', ticket: null }, (l) => lines.push(l))).toBe(false);
  });
});
