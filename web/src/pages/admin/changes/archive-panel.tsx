import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useServices } from '../../../app/context';
import { usePermission } from '../../../app/identity';
import { Button } from '../../../components/ui';
import type { ArchiveRestored } from '../admin-types';
import { Advisory, AdminDialog, INPUT, MUTED, RefusalNotice, SavedNotice } from '../admin-ui';
import { type Refusal, refusalOf } from '../refusal';
import { download, upload } from '../transfer';

/** The whole-database archive: a download, and a restore into an empty installation. */
export function ArchivePanel() {
  const { session } = useServices();
  const canExport = usePermission('archive.export');
  const canImport = usePermission('archive.import');
  const queryClient = useQueryClient();
  const fileId = useId();
  const [file, setFile] = useState<File | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState<'download' | 'restore' | null>(null);
  const [refusal, setRefusal] = useState<{ on: 'download' | 'restore'; refusal: Refusal } | null>(null);
  const [downloaded, setDownloaded] = useState<string | null>(null);
  const [restored, setRestored] = useState<ArchiveRestored | null>(null);
  if (!canExport && !canImport) return null;

  const doDownload = async () => {
    setBusy('download'); setRefusal(null); setDownloaded(null);
    try {
      setDownloaded(await download(session, '/api/archive', 'pipeline-service-archive.ndjson.gz'));
    } catch (e) {
      setRefusal({ on: 'download', refusal: refusalOf(e) });
    } finally {
      setBusy(null);
    }
  };
  const doRestore = async () => {
    if (!file) return;
    setConfirming(false); setBusy('restore'); setRefusal(null); setRestored(null);
    try {
      setRestored(await upload<ArchiveRestored>(session, '/api/archive', file, 'application/gzip'));
      await queryClient.invalidateQueries();
    } catch (e) {
      setRefusal({ on: 'restore', refusal: refusalOf(e) });
    } finally {
      setBusy(null);
    }
  };

  return (
    <section aria-labelledby="archive-title" className="space-y-3">
      <h2 id="archive-title" className="text-lg font-semibold">Whole-database archive</h2>
      <Advisory>
        The archive holds everything the database holds: runs, stored secrets (still sealed under <code>SERVICE_SECRETS_KEY</code>) and personal data. Keep it as guarded as the database.
      </Advisory>
      {canExport ? (
        <div className="space-y-2">
          <Button onPress={() => void doDownload()} isDisabled={busy !== null}>{busy === 'download' ? 'Downloading…' : 'Download the archive'}</Button>
          {downloaded ? <SavedNotice>Downloaded {downloaded}.</SavedNotice> : null}
          {refusal?.on === 'download' ? <RefusalNotice refusal={refusal.refusal} /> : null}
        </div>
      ) : null}
      {canImport ? (
        <form aria-label="Restore an archive" className="max-w-xl space-y-2 rounded border border-slate-200 p-3 dark:border-slate-800" onSubmit={(e) => { e.preventDefault(); if (file) setConfirming(true); }}>
          <label htmlFor={fileId} className="block text-sm font-medium">Archive (.ndjson.gz)</label>
          <input id={fileId} type="file" accept=".gz,application/gzip" className={INPUT} onChange={(e) => { setFile(e.target.files?.[0] ?? null); setRefusal(null); setRestored(null); }} />
          <p className={`text-xs ${MUTED}`}>A restore goes into an empty installation only (a fresh, migrated database), all or nothing. Run the server with the same <code>SERVICE_SECRETS_KEY</code> so the stored secrets can be read.</p>
          <Button type="submit" tone="primary" isDisabled={!file || busy !== null}>{busy === 'restore' ? 'Restoring…' : 'Restore'}</Button>
          {refusal?.on === 'restore' ? <RefusalNotice refusal={refusal.refusal} /> : null}
          {restored ? (
            <SavedNotice>
              Restored the archive taken {restored.createdAt} (schema {restored.schema}) as change #{restored.change}:
              {' '}{Object.entries(restored.rows).filter(([, n]) => n > 0).map(([t, n]) => `${t} ${n}`).join(', ') || 'no rows'}.
            </SavedNotice>
          ) : null}
        </form>
      ) : null}
      <AdminDialog title="Restore this archive?" isOpen={confirming} onClose={() => setConfirming(false)}>
        <p className="text-sm">{file?.name} is restored into this installation, which must be empty; anything refused leaves the database as it was.</p>
        <div className="flex gap-2">
          <Button tone="danger" onPress={() => void doRestore()}>Restore</Button>
          <Button onPress={() => setConfirming(false)}>Cancel</Button>
        </div>
      </AdminDialog>
    </section>
  );
}
