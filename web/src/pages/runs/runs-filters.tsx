import { useNavigate } from '@tanstack/react-router';
import { RUN_STATES } from '../../api/types';
import { RUNS_RANGES, type RunsFilter } from '../../lib/runs-filter';

const FIELD = 'rounded border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-600 dark:bg-slate-900';

/** Each change replaces the query string, so the filter is in the URL, Back and links. */
export function RunsFilters({ filter }: { filter: RunsFilter }) {
  const navigate = useNavigate({ from: '/runs' });
  const set = (patch: Partial<RunsFilter>) =>
    void navigate({ search: (prev: RunsFilter) => clean({ ...prev, ...patch }) });
  return (
    <form role="search" aria-label="Filter runs" className="mb-3 flex flex-wrap items-end gap-3" onSubmit={(e) => e.preventDefault()}>
      <label className="flex flex-col text-xs">
        State
        <select className={FIELD} value={filter.state ?? ''} onChange={(e) => set({ state: (e.target.value || undefined) as RunsFilter['state'] })}>
          <option value="">Any</option>
          {RUN_STATES.map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
      </label>
      {(['project', 'pipeline', 'platform', 'ticket'] as const).map((key) => (
        <label key={key} className="flex flex-col text-xs capitalize">
          {key}
          <input
            className={FIELD}
            defaultValue={filter[key] ?? ''}
            key={filter[key] ?? ''}
            data-search={key === 'project' ? true : undefined}
            onBlur={(e) => set({ [key]: e.target.value.trim() || undefined })}
            onKeyDown={(e) => { if (e.key === 'Enter') set({ [key]: e.currentTarget.value.trim() || undefined }); }}
          />
        </label>
      ))}
      <label className="flex flex-col text-xs">
        Created
        <select className={FIELD} value={filter.range ?? ''} onChange={(e) => set({ range: (e.target.value || undefined) as RunsFilter['range'] })}>
          <option value="">Any time</option>
          {Object.keys(RUNS_RANGES).map((r) => <option key={r} value={r}>Last {r}</option>)}
        </select>
      </label>
    </form>
  );
}

function clean(filter: RunsFilter): RunsFilter {
  return Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined && v !== '')) as RunsFilter;
}
