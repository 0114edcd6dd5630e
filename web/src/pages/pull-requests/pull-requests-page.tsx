import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useServices } from '../../app/context';
import { pullRequestsRoute } from '../../app/router';
import { Button, EmptyState, PageTitle, PanelError, formatTime } from '../../components/ui';
import { PR_PAGE_SIZE, PR_STATES, type PrState, type PullRequestsSearch, pullRequestsQuery } from '../../lib/page-search';

/** `GET /api/pull-requests` items (PullRequest in the OpenAPI document). */
interface PullRequest {
  runId: string | null;
  project: string;
  ticket: string | null;
  repo: string;
  url: string;
  number: number;
  state: PrState;
  openedAt: string;
}
interface PullRequestPage { items: PullRequest[]; total: number }

const FIELD = 'rounded border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-600 dark:bg-slate-900';
const PR_TONES: Record<PrState, string> = {
  open: 'bg-green-100 text-green-900 dark:bg-green-900 dark:text-green-100',
  merged: 'bg-violet-100 text-violet-900 dark:bg-violet-900 dark:text-violet-100',
  closed: 'bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100',
};
const COLUMNS = ['Project', 'Ticket', 'Repository', 'Number', 'State', 'Opened', 'Run'];

export function PullRequestsPage() {
  const search = pullRequestsRoute.useSearch();
  const navigate = useNavigate({ from: '/pull-requests' });
  const { api } = useServices();
  const prs = useQuery({
    queryKey: ['pull-requests', search],
    queryFn: ({ signal }) => api.get<PullRequestPage>(`/api/pull-requests?${pullRequestsQuery(search)}`, { signal }),
    placeholderData: keepPreviousData,
  });
  // A filter change starts again at page 1; paging keeps the filters.
  const set = (patch: Partial<PullRequestsSearch>) =>
    void navigate({ search: (prev: PullRequestsSearch) => clean({ ...prev, page: undefined, ...patch }) });
  const page = search.page ?? 1;
  const total = prs.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PR_PAGE_SIZE));
  const filtered = search.project !== undefined || search.state !== undefined;

  return (
    <section>
      <PageTitle>Pull requests</PageTitle>
      <form role="search" aria-label="Filter pull requests" className="mb-3 flex flex-wrap items-end gap-3" onSubmit={(e) => e.preventDefault()}>
        <label className="flex flex-col text-xs">
          Project
          <input
            className={FIELD}
            data-search
            defaultValue={search.project ?? ''}
            key={search.project ?? ''}
            onBlur={(e) => set({ project: e.target.value.trim() || undefined })}
            onKeyDown={(e) => { if (e.key === 'Enter') set({ project: e.currentTarget.value.trim() || undefined }); }}
          />
        </label>
        <label className="flex flex-col text-xs">
          State
          <select className={FIELD} value={search.state ?? ''} onChange={(e) => set({ state: (e.target.value || undefined) as PrState | undefined })}>
            <option value="">Any</option>
            {PR_STATES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
      </form>

      {prs.isPending ? <p role="status">Loading pull requests…</p> : null}
      {prs.isError ? <PanelError what="the pull requests" error={prs.error} retry={() => void prs.refetch()} /> : null}
      {prs.data && prs.data.items.length === 0 ? (
        filtered || page > 1 ? (
          <EmptyState title="No pull request matches these filters.">
            <p><Link to="/pull-requests" className="underline">Clear the filters</Link> to see every pull request the service opened.</p>
          </EmptyState>
        ) : (
          <EmptyState title="No pull requests yet.">
            <p>
              A run opens a pull request (a merge request on GitLab) in each repository where its pipeline changed something, and lists it here with
              its ticket and run. A <code>code</code> run on a ticket is the usual way: see <Link to="/runs" className="underline">the runs</Link> for
              what ran and why it opened nothing.
            </p>
            <p>The state is what the host answered when a run last opened or updated the pull request.</p>
          </EmptyState>
        )
      ) : null}
      {prs.data && prs.data.items.length > 0 ? (
        <>
          <div className="overflow-x-auto rounded border border-slate-200 dark:border-slate-800">
            <table aria-label="Pull requests" className="w-full border-collapse text-sm">
              <thead className="bg-slate-100 text-left dark:bg-slate-900">
                <tr>{COLUMNS.map((c) => <th key={c} scope="col" className="px-3 py-2 font-semibold whitespace-nowrap">{c}</th>)}</tr>
              </thead>
              <tbody>
                {prs.data.items.map((pr) => (
                  <tr key={pr.url} data-row tabIndex={-1} className="border-t border-slate-200 hover:bg-slate-100 focus:bg-blue-50 dark:border-slate-800 dark:hover:bg-slate-900 dark:focus:bg-slate-800">
                    <td className="px-3 py-2">{pr.project}</td>
                    <td className="px-3 py-2">{pr.ticket ?? '—'}</td>
                    <td className="px-3 py-2">{pr.repo}</td>
                    <td className="px-3 py-2">
                      <a href={pr.url} target="_blank" rel="noreferrer" className="text-blue-700 underline dark:text-blue-300">
                        #{pr.number}<span className="sr-only"> in {pr.repo} (opens the host)</span>
                      </a>
                    </td>
                    <td className="px-3 py-2"><span className={`inline-block rounded px-2 py-0.5 text-xs font-medium ${PR_TONES[pr.state] ?? ''}`}>{pr.state}</span></td>
                    <td className="px-3 py-2 whitespace-nowrap">{formatTime(pr.openedAt)}</td>
                    <td className="px-3 py-2">
                      {pr.runId ? (
                        <Link to="/runs/$runId" params={{ runId: pr.runId }} className="text-blue-700 underline dark:text-blue-300">
                          {pr.runId.slice(0, 8)}<span className="sr-only"> (the run that last updated it)</span>
                        </Link>
                      ) : '—'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav aria-label="Pages of pull requests" className="mt-2 flex flex-wrap items-center gap-3 text-sm">
            <span className="text-slate-600 dark:text-slate-400" role="status">
              {(page - 1) * PR_PAGE_SIZE + 1}–{(page - 1) * PR_PAGE_SIZE + prs.data.items.length} of {total}, newest first
            </span>
            <Button isDisabled={page <= 1} onPress={() => void navigate({ search: (prev: PullRequestsSearch) => clean({ ...prev, page: page - 1 }) })}>Previous page</Button>
            <Button isDisabled={page >= pages} onPress={() => void navigate({ search: (prev: PullRequestsSearch) => clean({ ...prev, page: page + 1 }) })}>Next page</Button>
          </nav>
        </>
      ) : null}
    </section>
  );
}

function clean(search: PullRequestsSearch): PullRequestsSearch {
  const out = Object.fromEntries(Object.entries(search).filter(([, v]) => v !== undefined && v !== '')) as PullRequestsSearch;
  if (out.page === 1) delete out.page;
  return out;
}
