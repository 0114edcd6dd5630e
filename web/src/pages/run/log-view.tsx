import { Link } from '@tanstack/react-router';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { RunEvent } from '../../api/types';
import { Button } from '../../components/ui';
import { FollowMode } from '../../lib/follow';
import { type FoldState, type FoldedCall, firstLine, foldCall, isFoldable } from '../../lib/run-log';

const LINE_PX = 22;

export interface LogViewProps {
  runId: string;
  label: string;
  events: readonly RunEvent[];
  /** Positions in `events` of the lines shown, in order. */
  indexes: readonly number[];
  fold?: FoldState;
  onToggle?: (seq: number) => void;
  /** The line a link points at: scrolled to and highlighted; following stops until "Jump to latest". */
  line?: number;
  onJumpToLatest?: () => void;
  terminal?: boolean;
  className?: string;
}

/**
 * A virtualized log: only the lines in view are in the DOM (100,000 lines stay smooth), it follows
 * new lines while the reader is at the bottom and stops when they scroll up (lib/follow.ts).
 */
export function LogView({ runId, label, events, indexes, fold, onToggle, line, onJumpToLatest, terminal, className }: LogViewProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const follow = useRef(new FollowMode());
  const [following, setFollowing] = useState(true);
  const virtual = useVirtualizer({
    count: indexes.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => LINE_PX,
    overscan: 20,
    getItemKey: (i) => events[indexes[i]!]?.seq ?? i,
  });

  // A linked line: scroll to it once it is loaded (and shown by the filters).
  const target = line === undefined ? -1 : indexes.findIndex((i) => events[i]?.seq === line);
  const linkedDone = useRef<number | null>(null);
  useLayoutEffect(() => {
    if (line === undefined) { linkedDone.current = null; return; }
    if (target === -1 || linkedDone.current === line) return;
    linkedDone.current = line;
    virtual.scrollToIndex(target, { align: 'center' });
  }, [line, target, virtual]);

  const live = following && line === undefined;
  useLayoutEffect(() => {
    if (!live || indexes.length === 0) return;
    follow.current.willScrollToEnd();
    virtual.scrollToIndex(indexes.length - 1, { align: 'end' });
  }, [live, indexes.length, virtual]);

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const onScroll = () => {
      if (follow.current.onScroll({ scrollTop: el.scrollTop, scrollHeight: el.scrollHeight, clientHeight: el.clientHeight })) setFollowing(follow.current.following);
    };
    el.addEventListener('scroll', onScroll, { passive: true });
    return () => el.removeEventListener('scroll', onScroll);
  }, []);

  const jump = () => {
    follow.current.jumpToLatest();
    setFollowing(true);
    onJumpToLatest?.();
    if (indexes.length) virtual.scrollToIndex(indexes.length - 1, { align: 'end' });
  };

  const items = virtual.getVirtualItems();
  return (
    <div className={`relative ${className ?? ''}`}>
      <div
        ref={scroller}
        tabIndex={0}
        role="region"
        aria-label={label}
        className={`h-full overflow-auto rounded border font-mono text-xs ${terminal ? 'border-slate-700 bg-slate-950 text-slate-100' : 'border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-950'}`}
      >
        <div style={{ height: virtual.getTotalSize(), position: 'relative' }}>
          {items.map((item) => {
            const event = events[indexes[item.index]!]!;
            return (
              <div key={item.key} data-index={item.index} ref={virtual.measureElement} className="absolute left-0 w-full" style={{ transform: `translateY(${item.start}px)` }}>
                <LogLine runId={runId} event={event} open={fold?.isOpen(event.seq) ?? false} highlighted={event.seq === line} onToggle={onToggle} terminal={terminal} />
              </div>
            );
          })}
        </div>
      </div>
      {!live && indexes.length > 0 ? (
        <Button tone="primary" className="absolute right-4 bottom-3 shadow-lg" onPress={jump}>Jump to latest</Button>
      ) : null}
    </div>
  );
}

const KIND_TONES: Record<string, string> = {
  stderr: 'text-red-700 dark:text-red-300',
  'step-failed': 'text-red-700 dark:text-red-300 font-semibold',
  'run-failed': 'text-red-700 dark:text-red-300 font-semibold',
  'step-started': 'text-blue-700 dark:text-blue-300',
  'step-finished': 'text-green-700 dark:text-green-300',
  'run-succeeded': 'text-green-700 dark:text-green-300 font-semibold',
  'run-parked': 'text-amber-700 dark:text-amber-300 font-semibold',
  'model-call': 'text-violet-700 dark:text-violet-300',
  'tool-call': 'text-teal-700 dark:text-teal-300',
};

const clock = (iso: string) => iso.slice(11, 19);

/** One line: cheap to render (no parsing unless the line is a call, and only for lines in view). */
const LogLine = memo(function LogLine({ runId, event, open, highlighted, onToggle, terminal }: {
  runId: string; event: RunEvent; open: boolean; highlighted: boolean; onToggle?: (seq: number) => void; terminal?: boolean;
}) {
  const foldable = onToggle !== undefined && isFoldable(event);
  const call = foldable ? foldCall(event) : null;
  return (
    <div
      id={`line-${event.seq}`}
      className={`flex items-start gap-2 px-2 py-0.5 leading-[18px] ${highlighted ? 'bg-amber-100 dark:bg-amber-900/60' : 'hover:bg-slate-50 dark:hover:bg-slate-900'}`}
    >
      <Link
        to="/runs/$runId"
        params={{ runId }}
        search={(prev) => ({ ...prev, line: event.seq })}
        aria-label={`Link to line ${event.seq}`}
        className={`w-12 shrink-0 text-right tabular-nums ${terminal ? 'text-slate-500' : 'text-slate-500 dark:text-slate-400'} hover:underline`}
      >
        {event.seq}
      </Link>
      <span className="hidden w-16 shrink-0 text-slate-500 sm:inline dark:text-slate-400">{clock(event.at)}</span>
      {!terminal ? <span className="hidden w-20 shrink-0 truncate text-slate-600 md:inline dark:text-slate-400" title={event.sandbox ?? ''}>{event.sandbox ?? ''}</span> : null}
      {!terminal ? <span className={`w-16 shrink-0 truncate sm:w-24 ${KIND_TONES[event.kind] ?? 'text-slate-600 dark:text-slate-400'}`}>{event.kind}</span> : null}
      {foldable ? (
        <button
          type="button"
          aria-expanded={open}
          aria-label={`${open ? 'Collapse' : 'Expand'} line ${event.seq}`}
          onClick={() => onToggle!(event.seq)}
          className="w-4 shrink-0 text-slate-500 hover:text-slate-900 dark:hover:text-white"
        >
          {open ? '▾' : '▸'}
        </button>
      ) : <span className="w-4 shrink-0" />}
      <div className={`min-w-0 flex-1 ${event.kind === 'stderr' && terminal ? 'text-red-300' : ''}`}>
        {call ? <CallSummary call={call} /> : null}
        {call && !open ? null : open || !foldable ? (
          <div className={`break-words whitespace-pre-wrap ${call ? 'mt-1 text-slate-600 dark:text-slate-400' : ''}`}>{event.text}</div>
        ) : (
          <div className="truncate">{firstLine(event.text)}</div>
        )}
      </div>
    </div>
  );
});

function CallSummary({ call }: { call: FoldedCall }) {
  const chip = 'rounded bg-slate-100 px-1 dark:bg-slate-800';
  if (call.type === 'tool-call') {
    return (
      <div className="flex min-w-0 gap-2">
        <span className={`${chip} shrink-0 font-semibold`}>{call.tool}</span>
        <span className="min-w-0 truncate" title={call.brief}>{call.brief.replace(new RegExp(`^${call.tool}:?\\s*`), '') || '—'}</span>
        <span className={`shrink-0 ${call.ok ? 'text-green-700 dark:text-green-300' : 'text-red-700 dark:text-red-300'}`}>
          {call.exitCode === null ? (call.ok ? 'ok' : 'error') : `exit ${call.exitCode}`}
        </span>
        <span className="shrink-0 tabular-nums text-slate-500 dark:text-slate-400">{call.seconds.toFixed(2)} s</span>
      </div>
    );
  }
  return (
    <div className="flex min-w-0 gap-2">
      <span className={`${chip} shrink-0 font-semibold`}>{call.model}</span>
      <span className="shrink-0 tabular-nums">{(call.inputTokens + call.outputTokens).toLocaleString()} tokens</span>
      <span className="hidden shrink-0 text-slate-500 sm:inline dark:text-slate-400">({call.inputTokens.toLocaleString()} in, {call.outputTokens.toLocaleString()} out)</span>
      <span className="shrink-0 tabular-nums">${call.costUsd.toFixed(4)}</span>
      <span className="shrink-0 tabular-nums text-slate-500 dark:text-slate-400">{call.seconds.toFixed(1)} s</span>
      <span className="truncate text-slate-500 dark:text-slate-400">{call.finishReason}{call.attempts > 1 ? `, ${call.attempts} attempts` : ''}</span>
    </div>
  );
}
