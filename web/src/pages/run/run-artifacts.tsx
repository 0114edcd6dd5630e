import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useServices } from '../../app/context';
import { Button, PanelError, formatTime } from '../../components/ui';
import { renderMarkdown } from '../../lib/markdown';
import { type SarifColumn, type SarifSort, type SarifTable, locationOf, parseSarif, sortFindings } from '../../lib/sarif';
import { fetchArtifact } from './artifact-text';

interface Artifact { name: string; mediaType: string; sizeBytes: number; createdAt: string }

const isSarif = (a: Artifact) => a.mediaType.includes('sarif') || a.name.endsWith('.sarif');
const isMarkdown = (a: Artifact) => a.mediaType.startsWith('text/markdown') || a.name.endsWith('.md');

/** The run's artifacts: SARIF as a findings table, Markdown rendered safely, everything downloadable. */
export function RunArtifacts({ runId }: { runId: string }) {
  const { api } = useServices();
  const list = useQuery({ queryKey: ['run', runId, 'artifacts'], queryFn: () => api.get<{ items: Artifact[] }>(`/api/runs/${encodeURIComponent(runId)}/artifacts`) });
  if (list.error) return <section className="mt-6"><h2 className="mb-2 text-lg font-semibold">Artifacts</h2><PanelError what="the run's artifacts" error={list.error} retry={() => void list.refetch()} /></section>;
  const items = list.data?.items ?? [];
  if (items.length === 0) return null;
  return (
    <section aria-labelledby="artifacts-heading" className="mt-6 space-y-4">
      <h2 id="artifacts-heading" className="text-lg font-semibold">Artifacts</h2>
      <ul className="flex flex-wrap gap-2 text-sm">
        {items.map((a) => <li key={a.name}><DownloadButton runId={runId} artifact={a} /></li>)}
      </ul>
      {items.filter(isSarif).map((a) => <SarifPanel key={a.name} runId={runId} artifact={a} />)}
      {items.filter(isMarkdown).map((a) => <MarkdownPanel key={a.name} runId={runId} artifact={a} />)}
    </section>
  );
}

function useArtifactText(runId: string, name: string) {
  const { session } = useServices();
  return useQuery({ queryKey: ['run', runId, 'artifact', name], queryFn: async () => (await fetchArtifact(session, runId, name)).text(), staleTime: Infinity });
}

function DownloadButton({ runId, artifact }: { runId: string; artifact: Artifact }) {
  const { session } = useServices();
  const [error, setError] = useState<string | null>(null);
  // The route needs the bearer token, so a plain link cannot download it: fetch, then save the blob.
  const download = async () => {
    setError(null);
    try {
      const blob = await fetchArtifact(session, runId, artifact.name);
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = artifact.name;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <>
      <Button onPress={() => void download()} aria-label={`Download ${artifact.name}`}>
        ⤓ {artifact.name} <span className="text-xs text-slate-500 dark:text-slate-400">({(artifact.sizeBytes / 1024).toFixed(1)} KB, {formatTime(artifact.createdAt)})</span>
      </Button>
      {error ? <span role="alert" className="ml-2 text-xs text-red-800 dark:text-red-200">{error}</span> : null}
    </>
  );
}

const COLUMNS: [SarifColumn, string][] = [['level', 'Level'], ['rule', 'Rule'], ['location', 'Location'], ['message', 'Message']];
const LEVEL_TONES: Record<string, string> = {
  error: 'bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100',
  warning: 'bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100',
  note: 'bg-slate-100 text-slate-800 dark:bg-slate-800 dark:text-slate-100',
  none: 'bg-slate-100 text-slate-800 dark:bg-slate-800 dark:text-slate-100',
};

function SarifPanel({ runId, artifact }: { runId: string; artifact: Artifact }) {
  const text = useArtifactText(runId, artifact.name);
  const [sort, setSort] = useState<SarifSort>({ column: 'level', descending: false });
  const parsed = useMemo((): { table: SarifTable } | { error: Error } | null => {
    if (text.data === undefined) return null;
    try { return { table: parseSarif(text.data) }; } catch (e) { return { error: e as Error }; }
  }, [text.data]);
  const rows = useMemo(() => (parsed && 'table' in parsed ? sortFindings(parsed.table.findings, sort) : []), [parsed, sort]);
  const title = `Findings (${artifact.name})`;
  if (text.error) return <PanelError what={artifact.name} error={text.error} retry={() => void text.refetch()} />;
  if (!parsed) return <p className="text-sm">Loading {artifact.name}…</p>;
  if ('error' in parsed) return <PanelError what={`${artifact.name} as SARIF`} error={parsed.error} />;
  return (
    <div>
      <h3 className="mb-1 font-semibold">{title}</h3>
      {rows.length === 0 ? <p className="text-sm">No findings.</p> : (
        <div className="overflow-x-auto rounded border border-slate-200 dark:border-slate-800">
          <table aria-label={title} className="w-full border-collapse text-sm">
            <thead className="bg-slate-100 text-left dark:bg-slate-900">
              <tr>
                {COLUMNS.map(([column, label]) => (
                  <th key={column} scope="col" aria-sort={sort.column === column ? (sort.descending ? 'descending' : 'ascending') : 'none'} className="px-3 py-2">
                    <button type="button" className="font-semibold hover:underline" onClick={() => setSort((s) => ({ column, descending: s.column === column ? !s.descending : false }))}>
                      {label}{sort.column === column ? (sort.descending ? ' ▼' : ' ▲') : ''}
                    </button>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((f, i) => (
                <tr key={i} className="border-t border-slate-200 align-top dark:border-slate-800">
                  <td className="px-3 py-1.5"><span className={`rounded px-1.5 py-0.5 text-xs font-medium ${LEVEL_TONES[f.level]}`}>{f.level}</span></td>
                  <td className="px-3 py-1.5 font-mono text-xs">{f.rule}</td>
                  <td className="px-3 py-1.5 font-mono text-xs break-all">{locationOf(f) || '—'}</td>
                  <td className="px-3 py-1.5">{f.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function MarkdownPanel({ runId, artifact }: { runId: string; artifact: Artifact }) {
  const text = useArtifactText(runId, artifact.name);
  const rendered = useMemo(() => (text.data === undefined ? null : renderMarkdown(text.data)), [text.data]);
  if (text.error) return <PanelError what={artifact.name} error={text.error} retry={() => void text.refetch()} />;
  return (
    <article aria-label={`Report ${artifact.name}`} className="rounded border border-slate-200 bg-white p-4 text-sm dark:border-slate-800 dark:bg-slate-900">
      <p className="text-xs text-slate-600 dark:text-slate-400">Report: {artifact.name}</p>
      {rendered ?? <p>Loading…</p>}
    </article>
  );
}
