import { describe, expect, it } from 'vitest';
import { parseIntent, parseTicketRef, stripMentions } from './chat-intent.js';

const PIPELINES = new Set(['code', 'security-scan', 'pr-review', 'lint']);

describe('chat intents', () => {
  it('reads the issue\'s phrasings of a start', () => {
    expect(parseIntent('fix BILL-12', PIPELINES)).toEqual({ kind: 'start', pipeline: null, ref: { kind: 'key', key: 'BILL-12' } });
    expect(parseIntent('<@U0BOT> run security-scan on shop#42', PIPELINES)).toEqual({ kind: 'start', pipeline: 'security-scan', ref: { kind: 'number', project: 'shop', ticket: '42' } });
    expect(parseIntent('code 42 in shop', PIPELINES)).toEqual({ kind: 'start', pipeline: 'code', ref: { kind: 'number', project: 'shop', ticket: '42' } });
    expect(parseIntent('lint shop#7', PIPELINES)).toEqual({ kind: 'start', pipeline: 'lint', ref: { kind: 'number', project: 'shop', ticket: '7' } });
  });

  it('reads state, cancel, follow, design and help', () => {
    expect(parseIntent('status of bill-3', PIPELINES)).toEqual({ kind: 'state', ref: { kind: 'key', key: 'BILL-3' } });
    expect(parseIntent('status', PIPELINES)).toEqual({ kind: 'state', ref: null });
    expect(parseIntent('recent runs', PIPELINES)).toEqual({ kind: 'state', ref: null });
    expect(parseIntent('cancel', PIPELINES)).toEqual({ kind: 'cancel', ref: null });
    expect(parseIntent('cancel the run of shop#4', PIPELINES)).toEqual({ kind: 'cancel', ref: { kind: 'number', project: 'shop', ticket: '4' } });
    expect(parseIntent('follow #9', PIPELINES)).toEqual({ kind: 'follow', ref: { kind: 'number', project: null, ticket: '9' } });
    expect(parseIntent('let\'s design a login page', PIPELINES)).toEqual({ kind: 'design', text: 'a login page' });
    expect(parseIntent('spec', PIPELINES)).toEqual({ kind: 'design', text: '' });
    expect(parseIntent('@bot help', PIPELINES)).toEqual({ kind: 'help' });
  });

  it('leaves free text, and a pipeline it does not know, unrecognised', () => {
    expect(parseIntent('could you have a look at the billing bug?', PIPELINES).kind).toBe('unknown');
    expect(parseIntent('deploy shop#4', PIPELINES).kind).toBe('unknown');
    expect(parseIntent('fix the thing', PIPELINES).kind).toBe('unknown');
  });

  it('reads ticket references and strips mentions', () => {
    expect(parseTicketRef('shop 42')).toEqual({ kind: 'number', project: 'shop', ticket: '42' });
    expect(parseTicketRef('42')).toBeNull();
    expect(stripMentions('<@U0BOT|pipeline> fix A-1')).toBe('fix A-1');
  });
});
