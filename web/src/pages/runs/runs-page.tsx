import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useEffect, useMemo } from 'react';
import type { RunPage, RunState } from '../../api/types';
import { RUN_STATES } from '../../api/types';
import { useServices } from '../../app/context';
import { clearFreshRuns, useFreshRuns, useHubState } from '../../app/live-cache';
import { Button, EmptyState, PageTitle, PanelError } from '../../components/ui';
import { runsQuery } from '../../lib/runs-filter';
import { runsRoute } from '../../app/router';
import { RunsFilters } from './runs-filters';
import { RunsTable } from './runs-table';

interface Statistics { total: number; byState: Record<RunState, number> }

export function RunsPage() {
  const filter = runsRoute.useSearch();
  const { api, hub } = useServices();
  const queryClient = useQueryClient();
  const key = useMemo(() => ['runs', filter] as const, [filter]);
  const runs = useQuery({ queryKey: key, queryFn: ({ signal }) => api.get<RunPage>(`/api/runs?${runsQuery(filter, Date.now())}`, { signal }) });
  const counts = useQuery({
    queryKey: ['statistics', 'counts', filter.project ?? null],
    queryFn: () => api.get<Statistics>(`/api/runs/statistics${filter.project ? `?project=${encodeURIComponent(filter.project)}` : ''}`),
  });
  const fresh = useFreshRuns(filter);
  const hubState = useHubState();
  useEffect(() => hub.subscribeRuns(), [hub]);
  useEffect(() => () => clearFreshRuns(filter), [filter]);

  const showNew = () => {
    clearFreshRuns(filter);
    void queryClient.invalidateQueries({ queryKey: key, exact: true });
  };
  const filtered = Object.keys(filter).length > 0;

  return (
    <section>
      <PageTitle actions={<span className="text-xs text-slate-600 dark:text-slate-400" role="status">{hubState === 'live' ? 'Live' : hubState === 'connecting' ? 'Connecting…' : 'Offline: reconnecting'}</span>}>
        Runs
      </PageTitle>
      {counts.data ? (
        <ul aria-label="Runs per state" className="mb-3 flex flex-wrap gap-2 text-sm">
          {RUN_STATES.map((state) => (
            <li key={state}>
              <Link to="/runs" search={{ ...filter, state }} className="rounded border border-slate-300 px-2 py-0.5 hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800">
                {state} <span className="tabular-nums">{counts.data.byState[state] ?? 0}</span>
              </Link>
            </li>
          ))}
        </ul>
      ) : null}
      <RunsFilters filter={filter} />
      {fresh > 0 ? (
        <Button tone="primary" className="mb-2" onPress={showNew}>{fresh} new run{fresh === 1 ? '' : 's'}</Button>
      ) : null}
      {runs.isPending ? <p role="status">Loading runs…</p> : null}
      {runs.isError ? <PanelError what="the runs" error={runs.error} retry={() => void runs.refetch()} /> : null}
      {runs.data && runs.data.items.length === 0 ? (
        filtered ? (
          <EmptyState title="No run matches these filters.">
            <p><Link to="/runs" className="underline">Clear the filters</Link> to see every run.</p>
          </EmptyState>
        ) : (
          <EmptyState title="No runs yet.">
            <p>A run starts when a ticket of a configured project gets one of its <code>trigger_statuses</code> (a label on GitHub and GitLab, a state on Azure DevOps and Jira), when a pull-request command asks for one, or from <code>npx pipeline-service run</code>.</p>
            <p>No project configured yet? Add one to <code>config/service.yml</code> (every key is documented in <code>config/service.example.yml</code>):</p>
            <pre className="overflow-x-auto rounded bg-slate-100 p-3 text-xs dark:bg-slate-900">{`projects:
  shop:
    tracker: platform-a                 # GitHub issues
    repos:
      - name: shop-web
        platform: platform-a
        url: https://github.com/acme/shop-web
        auth_secret: \${SHOP_TOKEN}
    platform_a_trigger:
      trigger_statuses: [ready-for-agent]   # the label that starts a run
      default_pipeline: code`}</pre>
            <p>The <Link to="/findings" className="underline">findings</Link> say what the server thinks of its configuration.</p>
          </EmptyState>
        )
      ) : null}
      {runs.data && runs.data.items.length > 0 ? (
        <>
          <RunsTable runs={runs.data.items} />
          <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">
            Showing {runs.data.items.length} of {runs.data.total} run{runs.data.total === 1 ? '' : 's'}, newest first.
          </p>
        </>
      ) : null}
    </section>
  );
}
