import { useMutation, useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useServices } from '../../app/context';
import { usePermission } from '../../app/identity';
import type { Finding, FindingsResponse } from '../../api/types';
import { Button, EmptyState, PageTitle, PanelError } from '../../components/ui';
import { type ConfigDocument, type ProjectView, platformName, projectsOf } from './config-projects';

export const CONFIG_KEY = ['config'] as const;
export const FINDINGS_KEY = ['findings'] as const;

interface InitResult {
  project: string;
  repositories: { repo: string; status: 'opened' | 'updated' | 'complete' | 'failed'; pullRequest?: { url: string; number: number }; files: string[]; discarded?: string[]; error?: string }[];
}

/** Who may add a project: it writes secrets and settings, and probes each connection first. */
export function useMayAddProject(): boolean {
  const write = usePermission('config.write');
  const secrets = usePermission('secrets.write');
  const probe = usePermission('diagnostics.probe');
  return write && secrets && probe;
}

export function AddProjectLink({ tone = 'primary' }: { tone?: 'primary' | 'plain' }) {
  const style = tone === 'primary'
    ? 'bg-blue-700 text-white hover:bg-blue-800 dark:bg-blue-500 dark:text-slate-950 dark:hover:bg-blue-400'
    : 'border border-slate-300 bg-white hover:bg-slate-100 dark:border-slate-600 dark:bg-slate-900 dark:hover:bg-slate-800';
  return <Link to="/projects/new" className={`inline-flex items-center rounded px-3 py-1.5 text-sm font-medium ${style}`}>Add project</Link>;
}

export function ProjectsPage() {
  const { api } = useServices();
  const mayAdd = useMayAddProject();
  const config = useQuery({ queryKey: CONFIG_KEY, queryFn: ({ signal }) => api.get<ConfigDocument>('/api/config', { signal }) });
  const findings = useQuery({ queryKey: FINDINGS_KEY, queryFn: ({ signal }) => api.get<FindingsResponse>('/api/config/findings', { signal }) });
  const projects = config.data ? projectsOf(config.data) : [];

  return (
    <section>
      <PageTitle actions={mayAdd && projects.length > 0 ? <AddProjectLink /> : null}>Projects</PageTitle>
      {config.isPending ? <p role="status">Loading projects…</p> : null}
      {config.isError ? <PanelError what="the configuration" error={config.error} retry={() => void config.refetch()} /> : null}
      {config.data && projects.length === 0 ? (
        <EmptyState title="No project yet">
          <p>
            A project ties a ticket tracker (GitHub, GitLab, Azure DevOps or Jira) to the repositories its tickets are worked on, and says which
            label or status starts which pipeline. Once one is configured, a ticket given that label or status becomes a run on the Runs page.
          </p>
          {mayAdd ? (
            <p><AddProjectLink /></p>
          ) : (
            <p>Ask an administrator to add one, or add a <code>projects:</code> entry to the service's configuration file.</p>
          )}
        </EmptyState>
      ) : null}
      {findings.isError ? <div className="mb-4"><PanelError what="the findings" error={findings.error} retry={() => void findings.refetch()} /></div> : null}
      <ul className="space-y-4">
        {projects.map((project) => (
          <li key={project.name}>
            <ProjectCard project={project} findings={(findings.data?.findings ?? []).filter((f) => f.project === project.name)} />
          </li>
        ))}
      </ul>
    </section>
  );
}

function ProjectCard({ project, findings }: { project: ProjectView; findings: Finding[] }) {
  const headingId = `project-${project.name}`;
  return (
    <article data-row tabIndex={-1} aria-labelledby={headingId} className="rounded border border-slate-200 p-4 focus:outline-2 focus:outline-blue-600 dark:border-slate-800">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id={headingId} className="text-lg font-semibold">{project.name}</h2>
        <span className="text-xs text-slate-600 dark:text-slate-400">from {project.sources.join(', ')}</span>
      </div>
      <dl className="mt-3 grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[10rem_1fr]">
        <dt className="font-medium">Tracker</dt>
        <dd>{platformName(project.tracker)}</dd>
        <dt className="font-medium">Repositories</dt>
        <dd>
          {project.repos.length === 0 ? 'none: runs need at least one' : (
            <ul>
              {project.repos.map((r) => (
                <li key={r.name} className="break-all">
                  <span className="font-medium">{r.name}</span> ({platformName(r.platform)}) <a className="text-blue-700 underline dark:text-blue-300" href={r.url} rel="noreferrer" target="_blank">{r.url}</a>
                  {r.branch ? ` · branch ${r.branch}` : ''}
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt className="font-medium">Triggers</dt>
        <dd>
          {project.triggers.length === 0 ? 'none: nothing starts a run' : (
            <ul className="space-y-1">
              {project.triggers.map((t) => (
                <li key={t.platform}>
                  {platformName(t.platform)}{t.where ? ` (${t.where})` : ''}:{' '}
                  {t.statuses.length > 0 ? <>{t.platform === 'platform-a' || t.platform === 'platform-b' ? 'labels' : 'statuses'} {t.statuses.join(', ')} → {t.defaultPipeline ?? 'no default pipeline'}</> : 'no trigger status'}
                  {Object.entries(t.labels).map(([label, pipeline]) => <span key={label}>; label {label} → {pipeline}</span>)}
                  {' · '}{t.polling ? 'polled' : 'webhooks'}
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt className="font-medium">Pipelines</dt>
        <dd>{project.pipelines.length > 0 ? project.pipelines.join(', ') : '—'}</dd>
        <dt className="font-medium">Findings</dt>
        <dd>
          {findings.length === 0 ? 'none' : (
            <ul className="space-y-1">
              {findings.map((f, i) => (
                <li key={i}>
                  <span className={f.severity === 'blocking' ? 'font-medium text-red-800 dark:text-red-300' : 'text-amber-800 dark:text-amber-300'}>{f.severity}</span>{' '}
                  {f.reason}{f.field ? <span className="text-xs text-slate-600 dark:text-slate-400"> ({f.field})</span> : null}
                </li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
      <InitPanel project={project} />
    </article>
  );
}

function InitPanel({ project }: { project: ProjectView }) {
  const { api } = useServices();
  const mayInit = usePermission('projects.init');
  const init = useMutation({ mutationFn: () => api.send<InitResult>('POST', `/api/projects/${encodeURIComponent(project.name)}/init`) });
  if (!mayInit) return null;
  return (
    <div className="mt-4 border-t border-slate-200 pt-3 dark:border-slate-800">
      <Button isDisabled={init.isPending || project.repos.length === 0} onPress={() => init.mutate()} aria-describedby={`init-help-${project.name}`}>
        {init.isPending ? 'Initialising…' : 'Initialise project'}
      </Button>
      <p id={`init-help-${project.name}`} className="mt-1 text-xs text-slate-600 dark:text-slate-400">
        Opens one pull request per repository adding the context files its base branch lacks; it never overwrites a file.
      </p>
      {init.isError ? <div className="mt-2"><PanelError what={`the initialisation of ${project.name}`} error={init.error} retry={() => init.mutate()} /></div> : null}
      {init.data ? (
        <ul role="status" aria-label={`Initialisation of ${project.name}`} className="mt-2 space-y-2 text-sm">
          {init.data.repositories.map((r) => (
            <li key={r.repo}>
              <span className="font-medium">{r.repo}</span>: {STATUS_TEXT[r.status]}
              {r.pullRequest ? <> — <a className="text-blue-700 underline dark:text-blue-300" href={r.pullRequest.url} target="_blank" rel="noreferrer">pull request #{r.pullRequest.number}</a></> : null}
              {r.error ? <p className="text-red-800 dark:text-red-300">{r.error}</p> : null}
              {r.files.length > 0 ? <p className="text-xs">Adds {r.files.join(', ')}</p> : null}
              {r.discarded && r.discarded.length > 0 ? (
                <p className="text-xs text-amber-800 dark:text-amber-300">Left out (initialisation never overwrites an existing file): {r.discarded.join(', ')}</p>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

const STATUS_TEXT: Record<InitResult['repositories'][number]['status'], string> = {
  opened: 'pull request opened',
  updated: 'its open pull request was brought up to date',
  complete: 'nothing missing, no pull request needed',
  failed: 'failed',
};
