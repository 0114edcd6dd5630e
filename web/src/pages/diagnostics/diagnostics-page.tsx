import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useServices } from '../../app/context';
import { usePermission } from '../../app/identity';
import { Button, EmptyState, PageTitle, PanelError, formatTime } from '../../components/ui';
import { platformName } from '../projects/config-projects';
import { type DiagnosticsConnection, type DiagnosticsSnapshot, type ProbeAnswer, healthOf } from './diagnostics-types';
import { type ProbeState, ProbeRunner } from './probe-runner';

const SNAPSHOT_KEY = ['diagnostics', 'connections'] as const;

const HEALTH_TONES = {
  ok: 'bg-green-100 text-green-900 dark:bg-green-900 dark:text-green-100',
  failing: 'bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100',
  unknown: 'bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100',
  unconfigured: 'bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100',
} as const;
const HEALTH_LABELS = { ok: 'works', failing: 'failing', unknown: 'not seen yet', unconfigured: 'not configured' } as const;

export function DiagnosticsPage() {
  const { api } = useServices();
  const queryClient = useQueryClient();
  const canProbe = usePermission('diagnostics.probe');
  const snapshot = useQuery({ queryKey: SNAPSHOT_KEY, queryFn: ({ signal }) => api.get<DiagnosticsSnapshot>('/api/diagnostics/connections', { signal }) });
  const [probes, setProbes] = useState<ReadonlyMap<string, ProbeState<ProbeAnswer>>>(new Map());
  const runner = useMemo(
    () => new ProbeRunner<ProbeAnswer>(
      (name) => api.send<ProbeAnswer>('POST', '/api/diagnostics/probe', { name }).finally(() => void queryClient.invalidateQueries({ queryKey: SNAPSHOT_KEY })),
      setProbes,
    ),
    [api, queryClient],
  );
  const connections = snapshot.data?.connections ?? [];
  const [probingAll, setProbingAll] = useState(false);
  const probeAll = () => {
    setProbingAll(true);
    void runner.runAll(connections.map((c) => c.name)).finally(() => setProbingAll(false));
  };

  return (
    <section>
      <PageTitle
        actions={canProbe && connections.length > 0 ? (
          <Button tone="primary" isDisabled={probingAll} onPress={probeAll}>{probingAll ? 'Probing all…' : 'Probe all'}</Button>
        ) : null}
      >
        Diagnostics
      </PageTitle>
      <p className="mb-4 max-w-3xl text-sm text-slate-700 dark:text-slate-300">
        Each connection of the server, with when it last worked and its last error as this replica saw them in normal work or a probe.
        Loading this page calls nothing; a probe is one read-only round trip of at most 30 seconds.
      </p>

      <h2 className="mb-2 text-lg font-semibold">Connections</h2>
      {snapshot.isPending ? <p role="status">Loading connections…</p> : null}
      {snapshot.isError ? <PanelError what="the connections" error={snapshot.error} retry={() => void snapshot.refetch()} /> : null}
      {snapshot.data && connections.length === 0 ? (
        <EmptyState title="No connections">
          <p>The server lists its trackers, repositories, model endpoints, store, database, sandbox and token authority here once they are configured.</p>
        </EmptyState>
      ) : null}
      {connections.length > 0 ? <ConnectionsTable connections={connections} probes={probes} canProbe={canProbe} onProbe={(name) => void runner.run(name)} /> : null}

      <h2 className="mt-8 mb-2 text-lg font-semibold">Webhooks</h2>
      {snapshot.data ? <WebhooksTable snapshot={snapshot.data} /> : null}
      {snapshot.isError ? <p className="text-sm text-slate-600 dark:text-slate-400">Shown once the connections load.</p> : null}
    </section>
  );
}

function ConnectionsTable({ connections, probes, canProbe, onProbe }: {
  connections: DiagnosticsConnection[];
  probes: ReadonlyMap<string, ProbeState<ProbeAnswer>>;
  canProbe: boolean;
  onProbe: (name: string) => void;
}) {
  return (
    <div className="overflow-x-auto rounded border border-slate-200 dark:border-slate-800">
      <table aria-label="Connections" className="block w-full text-left text-sm sm:table">
        <thead className="hidden bg-slate-100 sm:table-header-group dark:bg-slate-900">
          <tr>
            <th scope="col" className="px-3 py-2">Connection</th>
            <th scope="col" className="px-3 py-2">State</th>
            <th scope="col" className="px-3 py-2">Target</th>
            <th scope="col" className="px-3 py-2">Last worked</th>
            <th scope="col" className="px-3 py-2">Last error</th>
            {canProbe ? <th scope="col" className="px-3 py-2">Probe</th> : null}
          </tr>
        </thead>
        <tbody className="block sm:table-row-group">
          {connections.map((c) => {
            const health = healthOf(c);
            const probe = probes.get(c.name);
            return (
              <tr key={c.name} data-row tabIndex={-1} className="block border-t border-slate-200 py-1 align-top first:border-t-0 sm:table-row sm:py-0 sm:first:border-t focus:bg-blue-50 dark:border-slate-800 dark:focus:bg-slate-800">
                <td className="block px-3 py-1 sm:table-cell sm:py-2">
                  <div className="font-medium break-all">{c.name}</div>
                  <div className="text-xs text-slate-600 dark:text-slate-400">{c.kind}{c.project ? ` · project ${c.project}` : ''}</div>
                </td>
                <td data-label="State" className="block px-3 py-1 sm:table-cell sm:py-2 before:mr-2 before:text-xs before:font-medium before:text-slate-600 before:content-[attr(data-label)] sm:before:content-none dark:before:text-slate-400 whitespace-nowrap">
                  <span className={`inline-block rounded px-2 py-0.5 text-xs font-medium ${HEALTH_TONES[health]}`}>{HEALTH_LABELS[health]}</span>
                </td>
                <td data-label="Target" className="block px-3 py-1 sm:table-cell sm:py-2 before:mr-2 before:text-xs before:font-medium before:text-slate-600 before:content-[attr(data-label)] sm:before:content-none dark:before:text-slate-400 sm:max-w-xs text-xs break-all">{c.target ?? <span className="text-slate-500 dark:text-slate-400">—</span>}</td>
                <td data-label="Last worked" className="block px-3 py-1 sm:table-cell sm:py-2 before:mr-2 before:text-xs before:font-medium before:text-slate-600 before:content-[attr(data-label)] sm:before:content-none dark:before:text-slate-400 whitespace-nowrap">{c.lastOk ? <time dateTime={c.lastOk}>{formatTime(c.lastOk)}</time> : 'never seen'}</td>
                <td data-label="Last error" className="block px-3 py-1 sm:table-cell sm:py-2 before:mr-2 before:text-xs before:font-medium before:text-slate-600 before:content-[attr(data-label)] sm:before:content-none dark:before:text-slate-400 sm:max-w-sm">
                  {c.lastError ? (
                    <>
                      <time dateTime={c.lastError.at} className="block text-xs text-slate-600 dark:text-slate-400">{formatTime(c.lastError.at)}</time>
                      <span className="break-words">{c.lastError.message}</span>
                    </>
                  ) : '—'}
                </td>
                {canProbe ? (
                  <td className="block px-3 py-1 sm:table-cell sm:py-2">
                    <Button aria-label={`Probe ${c.name}`} isDisabled={probe?.state === 'running'} onPress={() => onProbe(c.name)}>
                      {probe?.state === 'running' ? 'Probing…' : 'Probe'}
                    </Button>
                    <ProbeOutcome probe={probe} />
                  </td>
                ) : null}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function ProbeOutcome({ probe }: { probe: ProbeState<ProbeAnswer> | undefined }) {
  if (!probe || probe.state === 'running') return <span role="status" className="sr-only">{probe ? 'Probing' : ''}</span>;
  if (probe.state === 'failed') return <p role="status" className="mt-1 text-xs text-red-800 dark:text-red-300">Could not probe: {String((probe.error as Error)?.message ?? probe.error)}</p>;
  const { answer } = probe;
  return (
    <p role="status" className={`mt-1 text-xs ${answer.ok ? 'text-green-800 dark:text-green-300' : 'text-red-800 dark:text-red-300'}`}>
      {answer.ok ? `OK in ${answer.latencyMs} ms` : `Failed after ${answer.latencyMs} ms: ${answer.error ?? 'no reason given'}`}
    </p>
  );
}

function WebhooksTable({ snapshot }: { snapshot: DiagnosticsSnapshot }) {
  return (
    <div className="overflow-x-auto rounded border border-slate-200 dark:border-slate-800">
      <table aria-label="Webhooks" className="block w-full text-left text-sm sm:table">
        <thead className="hidden bg-slate-100 sm:table-header-group dark:bg-slate-900">
          <tr>
            <th scope="col" className="px-3 py-2">Platform</th>
            <th scope="col" className="px-3 py-2">Endpoint</th>
            <th scope="col" className="px-3 py-2">Secret</th>
            <th scope="col" className="px-3 py-2">Last delivery</th>
          </tr>
        </thead>
        <tbody className="block sm:table-row-group">
          {snapshot.webhooks.map((w) => (
            <tr key={w.platform} data-row tabIndex={-1} className="block border-t border-slate-200 py-1 first:border-t-0 sm:table-row sm:py-0 sm:first:border-t focus:bg-blue-50 dark:border-slate-800 dark:focus:bg-slate-800">
              <td className="block px-3 py-1 sm:table-cell sm:py-2 font-medium">{platformName(w.platform)}</td>
              <td data-label="Endpoint" className="block px-3 py-1 sm:table-cell sm:py-2 before:mr-2 before:text-xs before:font-medium before:text-slate-600 before:content-[attr(data-label)] sm:before:content-none dark:before:text-slate-400 text-xs"><code>/webhook/{w.platform}</code></td>
              <td data-label="Secret" className="block px-3 py-1 sm:table-cell sm:py-2 before:mr-2 before:text-xs before:font-medium before:text-slate-600 before:content-[attr(data-label)] sm:before:content-none dark:before:text-slate-400">{w.secretConfigured ? 'configured: deliveries are verified' : 'not configured: deliveries are not verified'}</td>
              <td data-label="Last delivery" className="block px-3 py-1 sm:table-cell sm:py-2 before:mr-2 before:text-xs before:font-medium before:text-slate-600 before:content-[attr(data-label)] sm:before:content-none dark:before:text-slate-400">
                {w.lastDelivery ? <><time dateTime={w.lastDelivery.at}>{formatTime(w.lastDelivery.at)}</time> · {w.lastDelivery.outcome}</> : 'none received'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
