import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import type { Finding } from '../../api/types';
import { useServices } from '../../app/context';
import { Button, EmptyState, PageTitle, PanelError, formatTime } from '../../components/ui';
import { useFindings } from '../../shell/degraded-banner';
import { type HealthResponse, nothingWrong, sortFindings, sortSubsystems } from './health-data';

const SEVERITY_TONES: Record<string, string> = {
  blocking: 'bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100',
  advisory: 'bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100',
};
const SUBSYSTEM_TONES: Record<string, string> = {
  up: 'bg-green-100 text-green-900 dark:bg-green-900 dark:text-green-100',
  degraded: 'bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100',
  down: 'bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100',
  disabled: 'bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100',
};
const ROW = 'border-t border-slate-200 hover:bg-slate-100 focus:bg-blue-50 dark:border-slate-800 dark:hover:bg-slate-900 dark:focus:bg-slate-800';
const TABLE_BOX = 'overflow-x-auto rounded border border-slate-200 dark:border-slate-800';
const HEAD = 'bg-slate-100 text-left dark:bg-slate-900';

function Badge({ tone, children }: { tone: string | undefined; children: string }) {
  return <span className={`inline-block rounded px-2 py-0.5 text-xs font-medium ${tone ?? ''}`}>{children}</span>;
}

export function FindingsPage() {
  const { api } = useServices();
  const findings = useFindings();
  const health = useQuery({ queryKey: ['health'], queryFn: ({ signal }) => api.get<HealthResponse>('/health', { signal }), refetchInterval: 30_000 });
  const allClear = nothingWrong(findings.data?.findings, health.data);

  return (
    <section>
      <PageTitle actions={<Button onPress={() => { void findings.refetch(); void health.refetch(); }}>Check again</Button>}>Findings</PageTitle>
      {allClear ? (
        <div role="status" className="mb-4 rounded border border-green-300 bg-green-50 p-4 text-sm text-green-900 dark:border-green-800 dark:bg-green-950 dark:text-green-100">
          <p className="font-medium">Nothing is wrong.</p>
          <p className="mt-1">No finding stands, the startup checks passed and every subsystem is up. This page checks again every 30 seconds.</p>
        </div>
      ) : null}

      <h2 className="mb-2 text-lg font-semibold">What the server found</h2>
      {findings.isPending ? <p role="status">Loading the findings…</p> : null}
      {findings.isError ? <PanelError what="the findings" error={findings.error} retry={() => void findings.refetch()} /> : null}
      {findings.data ? (
        <>
          <p className="mb-2 text-sm" role="status">
            {findings.data.blocking} blocking, {findings.data.advisory} advisory.{' '}
            {findings.data.blocking > 0 ? 'A blocking finding degrades the service until it is fixed.' : null}
          </p>
          {findings.data.findings.length === 0 ? (
            <EmptyState title="No findings.">
              <p>The server checks its configuration, the access rules, its store, database and sandbox backend, and the dashboard's build, and lists here what it would have you fix: blocking findings first.</p>
            </EmptyState>
          ) : (
            <FindingsTable findings={sortFindings(findings.data.findings)} />
          )}
        </>
      ) : null}

      <h2 className="mt-6 mb-2 text-lg font-semibold">Startup checks and subsystems</h2>
      {health.isPending ? <p role="status">Loading the health…</p> : null}
      {health.isError ? <PanelError what="the health" error={health.error} retry={() => void health.refetch()} /> : null}
      {health.data ? <HealthPanels health={health.data} /> : null}
      <p className="mt-4 text-xs text-slate-600 dark:text-slate-400">
        From <code>GET /api/config/findings</code> and <code>GET /health</code>. Who you are and why a token is refused: <Link to="/identity" className="underline">Identity</Link>.
      </p>
    </section>
  );
}

function FindingsTable({ findings }: { findings: Finding[] }) {
  return (
    <div className={TABLE_BOX}>
      <table aria-label="Findings" className="w-full border-collapse text-sm">
        <thead className={HEAD}>
          <tr>{['Severity', 'Subsystem', 'Reason', 'Project', 'Trigger', 'Field'].map((c) => <th key={c} scope="col" className="px-3 py-2 font-semibold">{c}</th>)}</tr>
        </thead>
        <tbody>
          {findings.map((f, i) => (
            <tr key={`${f.subsystem}-${f.project}-${f.field}-${i}`} data-row tabIndex={-1} className={ROW}>
              <td className="px-3 py-2"><Badge tone={SEVERITY_TONES[f.severity]}>{f.severity}</Badge></td>
              <td className="px-3 py-2 whitespace-nowrap">{f.subsystem}</td>
              <td className="px-3 py-2">{f.reason}</td>
              <td className="px-3 py-2">{f.project ?? '—'}</td>
              <td className="px-3 py-2">{f.trigger ?? '—'}</td>
              <td className="px-3 py-2">{f.field ? <code>{f.field}</code> : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function HealthPanels({ health }: { health: HealthResponse }) {
  const { preflight } = health;
  const preflightTone = preflight.status === 'pass' ? SUBSYSTEM_TONES['up'] : preflight.status === 'fail' ? SUBSYSTEM_TONES['down'] : SUBSYSTEM_TONES['disabled'];
  return (
    <div className="space-y-4">
      <div>
        <p className="mb-2 text-sm">
          Startup checks: <Badge tone={preflightTone}>{preflight.status}</Badge>{' '}
          {preflight.status === 'pending'
            ? 'still running.'
            : `${preflight.passed} passed, ${preflight.failed} failed, ${preflight.skipped} skipped${preflight.completed_at_utc ? ` (${formatTime(preflight.completed_at_utc)})` : ''}.`}
        </p>
        {preflight.failures.length > 0 ? (
          <div className={TABLE_BOX}>
            <table aria-label="Failed startup checks" className="w-full border-collapse text-sm">
              <thead className={HEAD}><tr>{['Check', 'What failed', 'How to fix it'].map((c) => <th key={c} scope="col" className="px-3 py-2 font-semibold">{c}</th>)}</tr></thead>
              <tbody>
                {preflight.failures.map((f) => (
                  <tr key={f.name} data-row tabIndex={-1} className={ROW}>
                    <td className="px-3 py-2 whitespace-nowrap"><code>{f.name}</code></td>
                    <td className="px-3 py-2">{f.message}</td>
                    <td className="px-3 py-2">{f.fix_hint}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </div>
      <div className={TABLE_BOX}>
        <table aria-label="Subsystems" className="w-full border-collapse text-sm">
          <thead className={HEAD}><tr>{['Subsystem', 'State', 'Why', 'Since'].map((c) => <th key={c} scope="col" className="px-3 py-2 font-semibold">{c}</th>)}</tr></thead>
          <tbody>
            {sortSubsystems(health.subsystems).map((s) => (
              <tr key={s.name} data-row tabIndex={-1} className={ROW}>
                <td className="px-3 py-2 whitespace-nowrap">{s.name}</td>
                <td className="px-3 py-2"><Badge tone={SUBSYSTEM_TONES[s.state]}>{s.state}</Badge></td>
                <td className="px-3 py-2">{s.reason || '—'}</td>
                <td className="px-3 py-2 whitespace-nowrap">{formatTime(s.last_changed_utc)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
