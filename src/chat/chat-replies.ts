import type { Permission } from '../auth/permission.js';
import type { Run } from '../runs/resource/run-resource.js';
import type { ChatCaller } from './chat-access.service.js';
import { type DashboardLinks, mdLink } from './run-status-text.js';

/** A refusal names the permission missing, and who lacks it (the principal to grant on the Access surface). */
export function refusal(caller: ChatCaller, lacking: readonly Permission[], act: string): string {
  return `Refused: to ${act} you need ${lacking.map((p) => `\`${p}\``).join(' and ')}, which ${caller.principal} does not hold `
    + `(roles: ${caller.roles.length ? caller.roles.join(', ') : 'none'}). An administrator can grant a role to \`${caller.principal}\` on the Access page (claim \`chat\`), or give this channel one in \`chat.channels\`.`;
}

export function helpText(platform: string, caller: ChatCaller): string {
  return [
    `I run the pipeline service's work from ${platform}. You are \`${caller.principal}\` (roles: ${caller.roles.length ? caller.roles.join(', ') : 'none'}).`,
    '• `fix BILL-12`, `run security-scan on shop#42`, `code 42 in shop` — start a pipeline on a ticket (runs.control); this thread then shows the run',
    '• `status of shop#42`, `status` — a ticket\'s last run, or the recent runs (runs.read)',
    '• `follow shop#42` — show the ticket\'s live run in this thread (runs.read)',
    '• `cancel` in a run\'s thread, or `cancel shop#42` (runs.control)',
    '• a parked run asks a question in its thread: reply there, or press an answer (runs.control)',
    '• `spec …` or `let\'s design …` — a design dialogue in the thread; its drafts are filed after you confirm (dialog.write)',
  ].join('\n');
}

export function recentRunsText(runs: readonly Run[], total: number, links: DashboardLinks): string {
  if (runs.length === 0) return 'No runs yet.';
  const lines = runs.map((r) => `• ${mdLink(r.id.slice(0, 8), links.run(r.id))} **${r.pipeline}** on ${r.project}${r.ticket ? `/${r.ticket}` : ''}: ${r.state}${r.error ? ` — ${r.error.split('\n')[0]}` : ''}`);
  return [`The ${runs.length} most recent of ${total} runs (${mdLink('all runs', links.runs())}):`, ...lines].join('\n');
}
