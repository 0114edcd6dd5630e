import { describe, expect, it } from 'vitest';
import { defaultServiceConfig } from '../config/service-config.js';
import { InProcessBackend } from '../sandbox/in-process.backend.js';
import type { RunEventSink } from './pipeline.js';
import { executePipeline } from './pipeline-execution.js';
import { resolvePipeline } from './pipeline-catalog.js';
import type { RunEventKind } from './run-event-kind.js';
import { StepRunner } from './step-runner.js';

function recorder(): RunEventSink & { events: { kind: RunEventKind; sandbox: string | null; text: string }[] } {
  const events: { kind: RunEventKind; sandbox: string | null; text: string }[] = [];
  return { events, emit: (kind, sandbox, text) => events.push({ kind, sandbox, text }) };
}

const config = defaultServiceConfig();
config.pipelines.ok = { commands: ['echo first', 'echo second'], timeout_seconds: 30, publish: 'none' };
config.pipelines.bad = { commands: ['echo first', 'false', 'echo third'], timeout_seconds: 30, publish: 'none' };
config.pipelines.late = { commands: ['sleep 5'], timeout_seconds: 1, publish: 'none' };

async function run(name: string) {
  const events = recorder();
  const result = await executePipeline({
    run: { runId: 'r', platform: 'platform-a', project: 'p', ticket: '1', pipeline: name },
    project: null, pipeline: resolvePipeline(config, name), backend: new InProcessBackend(), runner: new StepRunner(), events,
  });
  return { result, events: events.events };
}

describe('step runner with command pipelines', () => {
  it('runs the commands in order in the default sandbox', async () => {
    const { result, events } = await run('ok');
    expect(result).toEqual({ ok: true, summary: 'Ran the ok pipeline: echo first; echo second.' });
    expect(events.filter((e) => e.kind === 'stdout').map((e) => `${e.sandbox}:${e.text}`)).toEqual(['default:first', 'default:second']);
    expect(events.map((e) => e.kind)).toEqual([
      'sandbox-created', 'step-started', 'stdout', 'step-finished', 'step-started', 'stdout', 'step-finished', 'sandbox-destroyed',
    ]);
  });

  it('stops at the first failing command and names it', async () => {
    const { result, events } = await run('bad');
    expect(result).toEqual({ ok: false, error: '`false` exited with code 1 in sandbox default', failedStep: 'false' });
    expect(events.some((e) => e.text === 'third')).toBe(false);
  });

  it('fails a run that overruns the pipeline timeout', async () => {
    const { result } = await run('late');
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.error).toMatch(/timed out/);
  });

  it('fails built-ins this release does not implement, and unknown names', async () => {
    expect((await run('security-scan')).result).toMatchObject({ ok: false, error: 'pipeline security-scan is not available in this release' });
    expect((await run('nope')).result.ok).toBe(false);
  });
});
