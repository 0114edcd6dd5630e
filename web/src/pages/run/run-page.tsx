import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useEffect } from 'react';
import { ApiError } from '../../api/client';
import { LIVE_STATES, type Run } from '../../api/types';
import { useServices } from '../../app/context';
import { usePermission } from '../../app/identity';
import { runRoute } from '../../app/router';
import { useNow } from '../../app/use-now';
import { Button, EmptyState, PageTitle, PanelError } from '../../components/ui';
import { LogPanel } from './log-panel';
import { RunActions } from './run-actions';
import { RunArtifacts } from './run-artifacts';
import { RunCriteria } from './run-criteria';
import { RunHeader } from './run-header';
import { RunQuestionPanel } from './run-question';
import { RunSteps } from './run-steps';
import { SandboxDrawer } from './sandbox-drawer';
import { useBatchedEvents } from './use-batched-events';

const gone = (error: unknown) => error instanceof ApiError && (error.status === 404 || error.status === 400);

export function RunPage() {
  const { runId } = runRoute.useParams();
  const search = runRoute.useSearch();
  const navigate = useNavigate({ from: '/runs/$runId' });
  const { api, hub } = useServices();
  const canWatch = usePermission('runs.watch');
  const run = useQuery({
    queryKey: ['run', runId],
    queryFn: ({ signal }) => api.get<Run>(`/api/runs/${encodeURIComponent(runId)}`, { signal }),
    retry: (count, error) => !gone(error) && !(error instanceof ApiError && error.status === 403) && count < 2,
  });
  // Watching the run (runs.watch) brings its changes and events; without it the runs feed does.
  useEffect(() => (canWatch ? undefined : hub.subscribeRuns()), [hub, canWatch]);
  const [snapshot, EventsSource] = useBatchedEvents(runId, canWatch);
  const now = useNow(run.data ? LIVE_STATES.has(run.data.state) : false);

  if (run.isPending) return <section><PageTitle>Run</PageTitle><p className="text-sm">Loading the run…</p></section>;
  if (run.error) {
    return (
      <section>
        <PageTitle>Run</PageTitle>
        {gone(run.error) ? (
          <EmptyState title="No run with this id">
            <p>There is no run <code className="font-mono">{runId}</code>: it may have been deleted (by hand or by retention), or the link is wrong.</p>
            <p><Link to="/runs" className="text-blue-700 underline dark:text-blue-300">Back to the runs</Link></p>
          </EmptyState>
        ) : <PanelError what="the run" error={run.error} retry={() => void run.refetch()} />}
      </section>
    );
  }
  const r = run.data;
  const title = r.ticket ? `Run of ${r.ticket}` : r.target ? `Run on ${r.target.repo}#${r.target.number}` : `Run ${r.id.slice(0, 8)}`;
  return (
    <section>
      <EventsSource />
      <nav aria-label="Breadcrumb" className="mb-1 text-xs"><Link to="/runs" className="text-blue-700 underline dark:text-blue-300">Runs</Link> / {r.id}</nav>
      <PageTitle actions={canWatch ? (
        <Button onPress={() => void navigate({ search: (prev) => ({ ...prev, drawer: true }) })}>Live sandbox output</Button>
      ) : undefined}>
        {title}
      </PageTitle>
      <div className="mb-4 flex justify-end"><RunActions run={r} /></div>
      <RunHeader run={r} now={now} />
      <RunQuestionPanel run={r} />
      <RunCriteria run={r} />
      <RunSteps run={r} snapshot={snapshot} now={now} />
      <LogPanel run={r} snapshot={snapshot} search={search} />
      <RunArtifacts runId={r.id} />
      {search.drawer && canWatch ? <SandboxDrawer run={r} onClose={() => void navigate({ search: (prev) => ({ ...prev, drawer: undefined }) })} /> : null}
    </section>
  );
}
