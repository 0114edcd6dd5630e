import { AskKind } from '../agent-types.js';
import type { AgentTool } from './tool-types.js';

/** `finish {summary}`: the work is done; the step ends `finished` with the summary. */
export function finishTool(): AgentTool {
  return {
    name: 'finish',
    description: 'Call when the task is complete, with a short summary of what was done (and anything left open).',
    parameters: { properties: { summary: { type: 'string', description: 'What was done, for the pull request and the ticket.' } }, required: ['summary'] },
    brief: () => 'finish',
    run: async (input, context) => {
      const summary = context.scrub(String(input.summary));
      return { output: 'Finished.', ok: true, exitCode: null, end: { kind: 'finished', summary } };
    },
  };
}

const ASK_KINDS: readonly string[] = Object.values(AskKind);

/** `ask {question, kind}` (code toolset): hands the ticket back to its author; the step ends `asked`. */
export function askTool(): AgentTool {
  return {
    name: 'ask',
    description:
      'Hand the ticket back to its author when it cannot be implemented as written: kind `question` (something must be clarified), '
      + '`contradiction` (the ticket contradicts itself or the code), `not-implementable`. Ends your work on it.',
    parameters: {
      properties: {
        question: { type: 'string', description: 'What the author must answer or decide, self-contained.' },
        kind: { type: 'string', enum: ASK_KINDS, description: 'question, contradiction or not-implementable.' },
      },
      required: ['question', 'kind'],
    },
    brief: (input) => `ask (${String(input.kind)}): ${clip(String(input.question))}`,
    run: async (input, context) => {
      const question = context.scrub(String(input.question));
      return { output: 'The question was handed to the ticket author.', ok: true, exitCode: null, end: { kind: 'asked', question, askKind: input.kind as AskKind } };
    },
  };
}

export function clip(text: string, max = 120): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
