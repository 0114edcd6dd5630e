import { cutNote, oneLine, untrustedSection } from '../agent/prompt/prompt-text.js';
import { UNTRUSTED_DATA_NOTICE } from '../agent/untrusted-text.js';
import type { DialogMessage, StoredDraft } from './dialog-types.js';

export interface DialogPromptInput {
  project: string;
  /** Repository names in the order of the trees (prefixes in a multi-repository project). */
  repositories: readonly string[];
  /** Earlier messages, oldest first (the new one is not among them). */
  history: readonly DialogMessage[];
  drafts: readonly StoredDraft[];
  message: string;
  secrets: readonly string[];
}

/** A long conversation keeps its latest messages whole: the rest is said to be left out. */
export const DIALOG_PROMPT_LIMITS = Object.freeze({ messageChars: 20_000, historyMessages: 40, historyMessageChars: 8_000, draftChars: 4_000 });

/**
 * The one user message of a turn. Everything people wrote (the new message, the earlier ones,
 * which may quote ticket text) and everything the model wrote before (its replies and drafts,
 * which may repeat repository content) is data: each sits in its own untrusted-data block.
 */
export function buildDialogPrompt(input: DialogPromptInput, limits = DIALOG_PROMPT_LIMITS): string {
  const { secrets } = input;
  const out = [`# Design conversation about project \`${oneLine(input.project, secrets)}\``, ''];
  if (input.repositories.length > 1) {
    out.push(`The project's repositories are in your working trees; every path starts with one of: ${input.repositories.map((r) => `\`${oneLine(r, secrets)}\``).join(', ')}.`);
  } else if (input.repositories.length === 1) {
    out.push(`The working tree is repository \`${oneLine(input.repositories[0]!, secrets)}\`.`);
  } else {
    out.push('The project declares no repository: the working tree is empty.');
  }
  out.push('', UNTRUSTED_DATA_NOTICE, '');
  const total = input.history.length;
  if (total > 0) {
    const keep = Math.min(total, limits.historyMessages);
    out.push('## The conversation so far', '', `${total} earlier message(s), oldest first${keep < total ? `; the first ${total - keep} are left out` : ''}.`, '');
    for (const m of input.history.slice(total - keep)) {
      const who = m.role === 'person' ? 'The person' : 'You';
      const section = untrustedSection(m.role === 'person' ? 'person-message' : 'earlier-answer', m.text, secrets, limits.historyMessageChars);
      out.push(`${who} (message ${m.seq}):`, cutNote(`Message ${m.seq}`, section) + section.block, '');
    }
  }
  if (input.drafts.length > 0) {
    out.push('## Drafts proposed so far', '');
    for (const d of input.drafts) {
      const state = d.filed ? `filed as ${oneLine(d.filed.ticket, secrets)}` : 'not filed';
      const text = `${d.title}\n\n${d.body}\n\nAcceptance criteria:\n${d.criteria.map((c) => `- ${c}`).join('\n')}${d.labels.length ? `\n\nLabels: ${d.labels.join(', ')}` : ''}`;
      out.push(`Draft ${d.index} (${state}):`, untrustedSection('earlier-draft', text, secrets, limits.draftChars).block, '');
    }
  }
  const message = untrustedSection('person-message', input.message, secrets, limits.messageChars);
  out.push('## The person\'s new message', '', 'Answer it. Read the code first where it helps; propose drafts with `propose_ticket` when asked for work to be planned.', '',
    cutNote('The message', message) + message.block);
  return out.join('\n');
}
