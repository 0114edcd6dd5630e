import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../api/types';
import { FilteredLog, FoldState, firstLine, foldCall, isFoldable, matchesLog } from './run-log';

const ev = (seq: number, kind: string, text: string, sandbox: string | null = null): RunEvent => ({ seq, at: '2026-01-01T00:00:00Z', kind, sandbox, text });

describe('folding model and tool calls (the server\'s formats)', () => {
  it('reads a tool call with an exit code', () => {
    expect(foldCall(ev(1, 'tool-call', 'bash: npm test → exit 1, error (12.34 s)'))).toEqual({
      type: 'tool-call', tool: 'bash', brief: 'bash: npm test', exitCode: 1, ok: false, seconds: 12.34,
    });
  });

  it('reads a tool call without an exit code, a bare tool name, and an arrow inside the brief', () => {
    expect(foldCall(ev(1, 'tool-call', 'read_file: src/a → b.ts 1-20 → ok (0.01 s)'))).toMatchObject({ tool: 'read_file', brief: 'read_file: src/a → b.ts 1-20', exitCode: null, ok: true });
    expect(foldCall(ev(1, 'tool-call', 'finish → ok (0.00 s)'))).toMatchObject({ tool: 'finish', brief: 'finish' });
    expect(foldCall(ev(1, 'tool-call', 'ask (question): which one? → ok (0.00 s)'))).toMatchObject({ tool: 'ask' });
  });

  it('reads a model call, with and without retries', () => {
    expect(foldCall(ev(1, 'model-call', 'claude-x: 1200 input + 80 output tokens, $0.0123, 2.5 s, tool_use'))).toEqual({
      type: 'model-call', model: 'claude-x', inputTokens: 1200, outputTokens: 80, costUsd: 0.0123, seconds: 2.5, finishReason: 'tool_use', attempts: 1,
    });
    expect(foldCall(ev(1, 'model-call', 'org/model:v2: 1 input + 2 output tokens, $0.0000, 0.1 s, stop, 3 attempts'))).toMatchObject({ model: 'org/model:v2', attempts: 3, finishReason: 'stop' });
  });

  it('leaves other kinds and unknown formats unfolded', () => {
    expect(foldCall(ev(1, 'stdout', 'bash: x → ok (1.00 s)'))).toBeNull();
    expect(foldCall(ev(1, 'tool-call', 'something else'))).toBeNull();
    expect(foldCall(ev(1, 'model-call', 'm: many tokens'))).toBeNull();
  });

  it('folds calls and long or multi-line text, not short lines', () => {
    expect(isFoldable(ev(1, 'tool-call', 'x'))).toBe(true);
    expect(isFoldable(ev(1, 'agent', 'I will now\nrun the tests'))).toBe(true);
    expect(isFoldable(ev(1, 'agent', 'a'.repeat(500)))).toBe(true);
    expect(isFoldable(ev(1, 'stdout', 'short'))).toBe(false);
    expect(firstLine('one\ntwo')).toBe('one');
    expect(firstLine('a'.repeat(300))).toHaveLength(241);
  });

  it('expand/collapse all set the default; a toggled line is the exception until the next', () => {
    let fold = FoldState.all(false).toggle(5);
    expect([fold.isOpen(5), fold.isOpen(6)]).toEqual([true, false]);
    fold = FoldState.all(true).toggle(6);
    expect([fold.isOpen(5), fold.isOpen(6)]).toEqual([true, false]);
    expect(fold.toggle(6).isOpen(6)).toBe(true);
  });
});

describe('filtering the log', () => {
  const events = [
    ev(1, 'stdout', 'Installing', 'web'),
    ev(2, 'stderr', 'WARN deprecated', 'api'),
    ev(3, 'tool-call', 'bash: npm test → exit 0, ok (1.00 s)'),
    ev(4, 'stdout', 'Tests PASSED', 'web'),
  ];

  it('keeps what matches sandbox, kinds (comma list) and text (case-insensitive), all combined', () => {
    const seqs = (f: Parameters<typeof matchesLog>[1]) => events.filter((e) => matchesLog(e, f)).map((e) => e.seq);
    expect(seqs({})).toEqual([1, 2, 3, 4]);
    expect(seqs({ sandbox: 'web' })).toEqual([1, 4]);
    expect(seqs({ kind: 'stderr,tool-call' })).toEqual([2, 3]);
    expect(seqs({ q: 'passed' })).toEqual([4]);
    expect(seqs({ sandbox: 'web', q: 'install' })).toEqual([1]);
    expect(seqs({ sandbox: 'web', kind: 'stderr' })).toEqual([]);
  });

  it('scans only new events, and starts over when the filter changes or an event arrives out of order', () => {
    const log: RunEvent[] = events.slice(0, 2);
    const view = new FilteredLog();
    expect(view.update(log, { sandbox: 'web' })).toEqual([0]);
    log.push(events[3]!);
    expect(view.update(log, { sandbox: 'web' })).toEqual([0, 2]);
    expect(view.update(log, { kind: 'stderr' })).toEqual([1]);
    // seq 3 arrives late: the log re-sorts in place (as EventLog does) and positions move.
    log.push(events[2]!);
    log.sort((a, b) => a.seq - b.seq);
    expect(view.update(log, { kind: 'stderr,stdout' })).toEqual([0, 1, 3]);
    log.push(ev(0, 'stdout', 'first', 'web'));
    log.sort((a, b) => a.seq - b.seq);
    expect(view.update(log, { kind: 'stderr,stdout' })).toEqual([0, 1, 2, 4]);
  });

  it('returns the same array while nothing changed (no re-render for nothing)', () => {
    const view = new FilteredLog();
    const first = view.update(events, {});
    expect(view.update(events, {})).toBe(first);
  });
});
