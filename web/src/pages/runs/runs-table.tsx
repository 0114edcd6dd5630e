import { Link, useNavigate } from '@tanstack/react-router';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import type { Run } from '../../api/types';
import { LIVE_STATES } from '../../api/types';
import { useNow } from '../../app/use-now';
import { StateBadge, formatCost, formatDuration, formatTime } from '../../components/ui';
import { durationMs } from '../../lib/run-cache';

const ROW_PX = 40;
const COLUMNS = ['State', 'Project', 'Ticket', 'Pipeline', 'Created', 'Duration', 'Usage', 'Pull requests'];

/**
 * The runs table (contract: a table named "Runs" with those column headers). Only the rows in
 * view are in the DOM; spacer rows keep the scroll height, so thousands of runs stay light.
 */
export function RunsTable({ runs }: { runs: Run[] }) {
  const scroller = useRef<HTMLDivElement>(null);
  const navigate = useNavigate();
  const virtual = useVirtualizer({ count: runs.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_PX, overscan: 10 });
  const now = useNow(runs.some((r) => LIVE_STATES.has(r.state)));
  const items = virtual.getVirtualItems();
  const top = items[0]?.start ?? 0;
  const bottom = virtual.getTotalSize() - (items[items.length - 1]?.end ?? 0);
  return (
    <div ref={scroller} className="max-h-[70vh] overflow-auto rounded border border-slate-200 dark:border-slate-800">
      <table aria-label="Runs" className="w-full border-collapse text-sm">
        <thead className="sticky top-0 z-10 bg-slate-100 text-left dark:bg-slate-900">
          <tr>{COLUMNS.map((c) => <th key={c} scope="col" className="px-3 py-2 font-semibold whitespace-nowrap">{c}</th>)}</tr>
        </thead>
        <tbody>
          {top > 0 ? <tr aria-hidden="true" style={{ height: top }} /> : null}
          {items.map((item) => {
            const run = runs[item.index]!;
            return (
              <tr
                key={run.id}
                data-row
                tabIndex={-1}
                style={{ height: ROW_PX }}
                className="border-t border-slate-200 hover:bg-slate-100 focus:bg-blue-50 dark:border-slate-800 dark:hover:bg-slate-900 dark:focus:bg-slate-800"
                onKeyDown={(e) => { if (e.key === 'Enter') void navigate({ to: '/runs/$runId', params: { runId: run.id } }); }}
              >
                <td className="px-3"><StateBadge state={run.state} /></td>
                <td className="px-3">{run.project}</td>
                <td className="px-3">
                  <Link to="/runs/$runId" params={{ runId: run.id }} className="text-blue-700 underline dark:text-blue-300">
                    {run.ticket ?? (run.target ? `${run.target.repo}#${run.target.number}` : run.id.slice(0, 8))}
                  </Link>
                  {run.ticketUrl ? (
                    <a href={run.ticketUrl} target="_blank" rel="noreferrer" aria-label={`Open ${run.ticket} in the tracker`} title="Open in the tracker" className="ml-1 text-slate-600 dark:text-slate-400">↗</a>
                  ) : null}
                </td>
                <td className="px-3">{run.pipeline}</td>
                <td className="px-3 whitespace-nowrap">{formatTime(run.createdAt)}</td>
                <td className="px-3 tabular-nums">{formatDuration(durationMs(run, now))}</td>
                <td className="px-3 whitespace-nowrap tabular-nums">
                  {run.usage.modelCalls > 0 ? `${(run.usage.inputTokens + run.usage.outputTokens).toLocaleString()} tok · ${formatCost(run.usage.costUsd)}` : '—'}
                </td>
                <td className="px-3">
                  {run.pullRequests.length === 0 ? '—' : run.pullRequests.map((pr) => (
                    <a key={pr.url} href={pr.url} target="_blank" rel="noreferrer" className="mr-2 underline">#{pr.number} {pr.state}</a>
                  ))}
                </td>
              </tr>
            );
          })}
          {bottom > 0 ? <tr aria-hidden="true" style={{ height: bottom }} /> : null}
        </tbody>
      </table>
    </div>
  );
}
