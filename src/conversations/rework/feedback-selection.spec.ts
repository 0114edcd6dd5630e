import { describe, expect, it } from 'vitest';
import { SERVICE_MARKER } from '../../platforms/service-marker.js';
import type { DiscussionItem } from '../run-conversation.js';
import { reworkFeedback } from './feedback-selection.js';

const SELF = 'pipeline-bot';
const SINCE = new Date('2026-03-01T10:00:00Z');

function item(over: Partial<DiscussionItem>): DiscussionItem {
  return { id: 'x', author: 'ana', body: 'text', createdAt: '2026-03-01T10:30:00Z', path: null, line: null, threadId: null, resolved: null, system: false, ...over };
}

describe('reworkFeedback', () => {
  it('keeps what was written at or after the previous attempt started, drops what came before', () => {
    const kept = reworkFeedback([
      item({ id: 'before', createdAt: '2026-03-01T09:59:59Z' }),
      item({ id: 'at', createdAt: '2026-03-01T10:00:00Z' }),
      item({ id: 'after' }),
    ], SELF, SINCE);
    expect(kept.map((i) => i.id)).toEqual(['at', 'after']);
  });

  it('keeps every comment of an open thread however old, not of a resolved one', () => {
    const old = '2026-02-01T00:00:00Z';
    const kept = reworkFeedback([
      item({ id: 'open', createdAt: old, threadId: 't1', resolved: false }),
      item({ id: 'resolved', createdAt: old, threadId: 't2', resolved: true }),
      item({ id: 'plain', createdAt: old }),
    ], SELF, SINCE);
    expect(kept.map((i) => i.id)).toEqual(['open']);
  });

  it('never keeps the host’s notes nor the service’s own comments; a pasted marker is a stranger’s', () => {
    const kept = reworkFeedback([
      item({ id: 'system', system: true, resolved: false }),
      item({ id: 'own', author: 'Pipeline-Bot', body: `Review\n${SERVICE_MARKER}`, resolved: false }),
      item({ id: 'pasted', author: 'ana', body: `the bot said ${SERVICE_MARKER}` }),
      item({ id: 'own-words', author: SELF, body: 'a note the account wrote by hand' }),
    ], SELF, SINCE);
    expect(kept.map((i) => i.id)).toEqual(['pasted', 'own-words']);
  });

  it('without a previous attempt everything counts; an unreadable time counts as new', () => {
    expect(reworkFeedback([item({ createdAt: '2020-01-01T00:00:00Z', resolved: true })], SELF, null)).toHaveLength(1);
    expect(reworkFeedback([item({ createdAt: '' })], SELF, SINCE)).toHaveLength(1);
  });
});
