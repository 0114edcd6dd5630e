import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { Fragment, useState } from 'react';
import { useServices } from '../../../app/context';
import { useAllPermissions } from '../use-permissions';
import { changesRoute } from '../../../app/router';
import { Button, EmptyState, PageTitle, PanelError, formatTime } from '../../../components/ui';
import type { ConfigChange, ConfigChangePage } from '../admin-types';
import { AdminDialog, MUTED, ROW, RefusalNotice, SavedNotice, TABLE, TABLE_WRAP, TD, TH, THEAD } from '../admin-ui';
import { changeDiff, changeKindLabel, isRevertible } from '../change-diff';
import { type Refusal, refusalOf } from '../refusal';
import { ArchivePanel } from './archive-panel';
import { ExchangePanel } from './exchange-panel';

const PAGE = 25;

/** Changes: the attributed change feed, each change's before/after, revert; export/import; archive. */
export function ChangesPage() {
  const { api } = useServices();
  const { offset = 0 } = changesRoute.useSearch();
  const navigate = useNavigate();
  const canRevert = useAllPermissions('config.write', 'secrets.write');
  const feed = useQuery({
    queryKey: ['changes', offset],
    queryFn: ({ signal }) => api.get<ConfigChangePage>(`/api/config/changes?limit=${PAGE}&offset=${offset}`, { signal }),
    placeholderData: keepPreviousData,
  });
  const [open, setOpen] = useState<number | null>(null);
  const [reverting, setReverting] = useState<ConfigChange | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const page = (to: number) => void navigate({ to: '/changes', search: to > 0 ? { offset: to } : {} });

  return (
    <section className="space-y-6">
      <PageTitle>Changes</PageTitle>
      <section aria-labelledby="feed-title" className="space-y-2">
        <h2 id="feed-title" className="text-lg font-semibold">Change feed</h2>
        <p className={`text-sm ${MUTED}`}>Every write of settings, secrets and access, newest first, with who made it. Secret values show as <code>***</code>.</p>
        {saved ? <SavedNotice>{saved}</SavedNotice> : null}
        {feed.isPending ? <p role="status">Loading changes…</p> : null}
        {feed.isError ? <PanelError what="the change feed" error={feed.error} retry={() => void feed.refetch()} /> : null}
        {feed.data && feed.data.changes.length === 0 ? (
          <EmptyState title="Nothing has been changed yet.">
            <p>Saving a setting on Configuration, a secret on Secrets or anything on Access writes a change record here; each can be looked at and reverted.</p>
          </EmptyState>
        ) : null}
        {feed.data && feed.data.changes.length > 0 ? (
          <>
            <div className={TABLE_WRAP}>
              <table aria-label="Changes" className={TABLE}>
                <thead className={THEAD}>
                  <tr><th scope="col" className={TH}>#</th><th scope="col" className={TH}>When</th><th scope="col" className={TH}>Who</th><th scope="col" className={TH}>What</th><th scope="col" className={TH}>Target</th><th scope="col" className={TH}><span className="sr-only">Actions</span></th></tr>
                </thead>
                <tbody>
                  {feed.data.changes.map((c) => (
                    <Fragment key={c.id}>
                      <tr data-row tabIndex={-1} className={ROW}>
                        <td className={`${TD} tabular-nums`}>{c.id}</td>
                        <td className={`${TD} whitespace-nowrap`}>{formatTime(c.at)}</td>
                        <td className={`${TD} whitespace-nowrap`}>{c.attribution}</td>
                        <td className={TD}>{changeKindLabel(c.kind)}{c.revertOf !== null ? <span className={`block text-xs ${MUTED}`}>reverts #{c.revertOf}</span> : null}</td>
                        <td className={`${TD} font-mono text-xs break-all`}>{c.target}</td>
                        <td className={`${TD} whitespace-nowrap text-right`}>
                          <Button aria-expanded={open === c.id} aria-controls={`change-${c.id}`} aria-label={`Before and after of change ${c.id}`} onPress={() => setOpen(open === c.id ? null : c.id)}>
                            {open === c.id ? 'Hide' : 'Before/after'}
                          </Button>
                          {canRevert && isRevertible(c.kind) ? <Button className="ml-2" aria-label={`Revert change ${c.id}`} onPress={() => { setSaved(null); setReverting(c); }}>Revert</Button> : null}
                        </td>
                      </tr>
                      {open === c.id ? (
                        <tr id={`change-${c.id}`}><td colSpan={6} className="bg-slate-50 p-3 dark:bg-slate-900"><ChangeDiff change={c} /></td></tr>
                      ) : null}
                    </Fragment>
                  ))}
                </tbody>
              </table>
            </div>
            <nav aria-label="Change feed pages" className="flex items-center gap-3 text-sm">
              <Button isDisabled={offset === 0} onPress={() => page(Math.max(0, offset - PAGE))}>Newer</Button>
              <span>{offset + 1}–{offset + feed.data.changes.length} of {feed.data.total}</span>
              <Button isDisabled={offset + PAGE >= feed.data.total} onPress={() => page(offset + PAGE)}>Older</Button>
            </nav>
          </>
        ) : null}
      </section>
      <ExchangePanel />
      <ArchivePanel />
      {reverting ? (
        <RevertDialog change={reverting} onClose={() => setReverting(null)} onReverted={(id) => { setSaved(`Reverted change #${reverting.id}; the revert is change #${id}.`); setReverting(null); void navigate({ to: '/changes', search: {} }); }} />
      ) : null}
    </section>
  );
}

export function ChangeDiff({ change }: { change: ConfigChange }) {
  const rows = changeDiff(change.before, change.after);
  if (rows.length === 0) return <p className="text-sm">Before and after are the same{change.kind === 'config.import' ? ' in what the feed shows' : ''}.</p>;
  return (
    <table aria-label={`Change ${change.id}: before and after`} className="w-full text-xs">
      <thead><tr className="text-left"><th scope="col" className="py-1 pr-3">Field</th><th scope="col" className="py-1 pr-3">Before</th><th scope="col" className="py-1">After</th></tr></thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.path} className="border-t border-slate-200 align-top dark:border-slate-800">
            <th scope="row" className="py-1 pr-3 text-left font-mono font-normal break-all">{r.path}</th>
            <td className="py-1 pr-3 font-mono break-all text-red-900 dark:text-red-200">{r.before ?? <em className="font-sans">none</em>}</td>
            <td className="py-1 font-mono break-all text-green-900 dark:text-green-200">{r.after ?? <em className="font-sans">removed</em>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function RevertDialog({ change, onClose, onReverted }: { change: ConfigChange; onClose: () => void; onReverted: (id: number) => void }) {
  const { api } = useServices();
  const queryClient = useQueryClient();
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const revert = useMutation({
    mutationFn: () => api.send<{ reverted: number; change: number }>('POST', `/api/config/changes/${change.id}/revert`),
    onSuccess: () => {
      for (const key of ['changes', 'config', 'secrets', 'access', 'identity', 'findings']) void queryClient.invalidateQueries({ queryKey: [key] });
    },
  });
  return (
    <AdminDialog title={`Revert change #${change.id}?`} isOpen onClose={onClose} wide>
      <p className="text-sm">{changeKindLabel(change.kind)} on <code className="break-all">{change.target}</code> by {change.attribution}. Reverting puts it back as <em>Before</em> shows, under the same rules as a save, and records the revert as a change of its own.</p>
      <ChangeDiff change={change} />
      <RefusalNotice refusal={refusal} />
      <div className="flex gap-2">
        <Button tone="primary" isDisabled={revert.isPending} onPress={() => { setRefusal(null); revert.mutate(undefined, { onSuccess: (r) => onReverted(r.change), onError: (e) => setRefusal(refusalOf(e)) }); }}>
          {revert.isPending ? 'Reverting…' : 'Revert'}
        </Button>
        <Button onPress={onClose}>{refusal ? 'Close' : 'Cancel'}</Button>
      </div>
    </AdminDialog>
  );
}
