import { useNavigate } from '@tanstack/react-router';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { Run } from '../../api/types';
import type { RunSearch } from '../../app/router';
import { Button, EmptyState, PanelError } from '../../components/ui';
import { FilteredLog, FoldState, facetsOf } from '../../lib/run-log';
import { LogView } from './log-view';
import type { EventsSnapshot } from './use-batched-events';

const KNOWN_KINDS = ['state', 'step-started', 'step-finished', 'step-failed', 'stdout', 'stderr', 'model-call', 'tool-call', 'agent', 'workspace', 'publish'];

/** The run's events as a log: filters and search in the URL (`sandbox`, `kind`, `q`), lines linkable (`line`). */
export function LogPanel({ run, snapshot, search }: { run: Run; snapshot: EventsSnapshot | null; search: RunSearch }) {
  const navigate = useNavigate({ from: '/runs/$runId' });
  const [fold, setFold] = useState(() => FoldState.all(false));
  const [text, setText] = useState(search.q ?? '');
  useEffect(() => setText(search.q ?? ''), [search.q]);
  // The URL follows the search box a moment after typing stops (one history entry, not one per key).
  useEffect(() => {
    if (text === (search.q ?? '')) return;
    const timer = setTimeout(() => void navigate({ search: (prev) => ({ ...prev, q: text || undefined, line: undefined }), replace: true }), 250);
    return () => clearTimeout(timer);
  }, [text, search.q, navigate]);

  const filtered = useRef(new FilteredLog());
  const facets = useRef({ scanned: 0, sets: { sandboxes: new Set<string>(), kinds: new Set<string>(KNOWN_KINDS) } });
  const events = snapshot?.events ?? [];
  const revision = snapshot?.revision ?? 0;
  const filter = useMemo(() => ({ sandbox: search.sandbox, kind: search.kind, q: search.q }), [search.sandbox, search.kind, search.q]);
  const indexes = useMemo(() => filtered.current.update(events, filter), [events, revision, filter]); // eslint-disable-line react-hooks/exhaustive-deps
  const { sandboxes, kinds } = useMemo(() => {
    const f = facets.current;
    facetsOf(events, f.scanned, f.sets);
    f.scanned = events.length;
    for (const s of run.sandboxes) f.sets.sandboxes.add(s.repo);
    return { sandboxes: [...f.sets.sandboxes].sort(), kinds: [...f.sets.kinds].sort() };
  }, [events, revision, run.sandboxes]); // eslint-disable-line react-hooks/exhaustive-deps

  const setSearch = (patch: Partial<RunSearch>) => void navigate({ search: (prev) => ({ ...prev, ...patch, line: undefined }), replace: true });
  const filtering = Boolean(search.sandbox || search.kind || search.q);
  const hiddenLine = search.line !== undefined && events.length > 0 && !indexes.some((i) => events[i]?.seq === search.line);
  const select = 'rounded border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-600 dark:bg-slate-900';

  return (
    <section aria-labelledby="log-heading" className="mt-6">
      <div className="mb-2 flex flex-wrap items-end gap-2">
        <h2 id="log-heading" className="mr-auto text-lg font-semibold">Log</h2>
        <label className="flex flex-col text-xs">Sandbox
          <select className={select} value={search.sandbox ?? ''} onChange={(e) => setSearch({ sandbox: e.target.value || undefined })}>
            <option value="">All sandboxes</option>
            {sandboxes.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        <label className="flex flex-col text-xs">Kind
          <select className={select} value={search.kind ?? ''} onChange={(e) => setSearch({ kind: e.target.value || undefined })}>
            <option value="">All kinds</option>
            <option value="model-call,tool-call">Model and tool calls</option>
            <option value="stdout,stderr">Output</option>
            {kinds.map((k) => <option key={k} value={k}>{k}</option>)}
            {search.kind && !kinds.includes(search.kind) && !search.kind.includes(',') ? <option value={search.kind}>{search.kind}</option> : null}
          </select>
        </label>
        <label className="flex flex-col text-xs">Search the log
          <input data-search type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="text…" className={`${select} w-48`} />
        </label>
        <Button onPress={() => setFold(FoldState.all(true))}>Expand all</Button>
        <Button onPress={() => setFold(FoldState.all(false))}>Collapse all</Button>
      </div>
      <p className="mb-1 text-xs text-slate-600 dark:text-slate-400" aria-live="polite">
        {filtering ? `${indexes.length.toLocaleString()} of ${events.length.toLocaleString()} lines` : `${events.length.toLocaleString()} lines`}
        {filtering ? <> · <button type="button" className="underline" onClick={() => { setText(''); setSearch({ sandbox: undefined, kind: undefined, q: undefined }); }}>Clear filters</button></> : null}
        {search.line !== undefined ? <> · line {search.line} linked</> : null}
      </p>
      {hiddenLine ? <p className="mb-1 text-xs text-amber-800 dark:text-amber-200">Line {search.line} is hidden by the filters or not in this run.</p> : null}
      {snapshot?.error ? <PanelError what="the run's events" error={snapshot.error} retry={snapshot.retry} /> : null}
      {snapshot && events.length === 0 && !snapshot.error ? (
        <EmptyState title="No events yet">
          <p>{run.state === 'queued' ? 'The run waits in the queue; its events appear here live once it starts.' : 'This run recorded no events.'}</p>
        </EmptyState>
      ) : null}
      {!snapshot ? <p className="text-sm">Loading events…</p> : null}
      {events.length > 0 ? (
        <LogView
          runId={run.id}
          label="Run log"
          events={events}
          indexes={indexes}
          fold={fold}
          onToggle={(seq) => setFold((f) => f.toggle(seq))}
          line={search.line}
          onJumpToLatest={() => setSearch({})}
          className="h-[60vh] min-h-64"
        />
      ) : null}
    </section>
  );
}
