import { useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useId, useState } from 'react';
import { useServices } from '../../../app/context';
import { useAllPermissions } from '../use-permissions';
import { Button } from '../../../components/ui';
import type { ConfigImported } from '../admin-types';
import { AdminDialog, INPUT, MUTED, RefusalNotice, SavedNotice } from '../admin-ui';
import { type Refusal, refusalOf } from '../refusal';
import { download, importContentType, upload } from '../transfer';

/** Configuration export (download) and import (upload): every problem listed, nothing applied then. */
export function ExchangePanel() {
  const { session } = useServices();
  const canExport = useAllPermissions('config.export', 'secrets.read');
  const canImport = useAllPermissions('config.import', 'secrets.write');
  const queryClient = useQueryClient();
  const fileId = useId();
  const [file, setFile] = useState<File | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState<'export' | 'import' | null>(null);
  const [refusal, setRefusal] = useState<{ on: 'export' | 'import'; refusal: Refusal } | null>(null);
  const [exported, setExported] = useState<string | null>(null);
  const [imported, setImported] = useState<ConfigImported | null>(null);
  if (!canExport && !canImport) return null;

  const doExport = async () => {
    setBusy('export'); setRefusal(null); setExported(null);
    try {
      setExported(await download(session, '/api/config/export', 'pipeline-service-config.yaml'));
    } catch (e) {
      setRefusal({ on: 'export', refusal: refusalOf(e) });
    } finally {
      setBusy(null);
    }
  };
  const doImport = async () => {
    if (!file) return;
    setConfirming(false); setBusy('import'); setRefusal(null); setImported(null);
    try {
      setImported(await upload<ConfigImported>(session, '/api/config/import', file, importContentType(file.name)));
      for (const key of ['changes', 'config', 'secrets', 'access', 'identity', 'findings']) void queryClient.invalidateQueries({ queryKey: [key] });
    } catch (e) {
      setRefusal({ on: 'import', refusal: refusalOf(e) });
    } finally {
      setBusy(null);
    }
  };

  return (
    <section aria-labelledby="exchange-title" className="space-y-3">
      <h2 id="exchange-title" className="text-lg font-semibold">Export and import the configuration</h2>
      <p className={`text-sm ${MUTED}`}>One YAML document: the configuration in force (references as <code>{'${NAME}'}</code>), the access records and the names of the secrets — never a secret's value.</p>
      {canExport ? (
        <div className="space-y-2">
          <Button onPress={() => void doExport()} isDisabled={busy !== null}>{busy === 'export' ? 'Exporting…' : 'Download the configuration'}</Button>
          {exported ? <SavedNotice>Downloaded {exported}.</SavedNotice> : null}
          {refusal?.on === 'export' ? <RefusalNotice refusal={refusal.refusal} /> : null}
        </div>
      ) : null}
      {canImport ? (
        <form aria-label="Import a configuration" className="max-w-xl space-y-2 rounded border border-slate-200 p-3 dark:border-slate-800" onSubmit={(e) => { e.preventDefault(); if (file) setConfirming(true); }}>
          <label htmlFor={fileId} className="block text-sm font-medium">Configuration document (.yaml or .json)</label>
          <input id={fileId} type="file" accept=".yaml,.yml,.json,application/yaml,application/json" className={INPUT} onChange={(e) => { setFile(e.target.files?.[0] ?? null); setRefusal(null); setImported(null); }} />
          <p className={`text-xs ${MUTED}`}>An import replaces every stored setting, person, group mapping and custom role, and cannot be reverted: download the configuration first to be able to go back. Stored secrets are not touched.</p>
          <Button type="submit" tone="primary" isDisabled={!file || busy !== null}>{busy === 'import' ? 'Importing…' : 'Import'}</Button>
          {refusal?.on === 'import' ? <RefusalNotice refusal={refusal.refusal} /> : null}
          {imported ? <ImportResult result={imported} /> : null}
        </form>
      ) : null}
      <AdminDialog title="Import this configuration?" isOpen={confirming} onClose={() => setConfirming(false)}>
        <p className="text-sm">{file?.name} replaces the stored settings and the access records here. It is judged whole first: with any problem nothing is applied. It cannot be reverted.</p>
        <div className="flex gap-2">
          <Button tone="danger" onPress={() => void doImport()}>Import</Button>
          <Button onPress={() => setConfirming(false)}>Cancel</Button>
        </div>
      </AdminDialog>
    </section>
  );
}

function ImportResult({ result }: { result: ConfigImported }) {
  const { imported } = result;
  return (
    <div className="space-y-2">
      <SavedNotice>
        Imported as change #{result.change}: {imported.settings.length} stored setting{imported.settings.length === 1 ? '' : 's'} ({imported.settings.join(', ') || 'none'}),
        {' '}{imported.people} {imported.people === 1 ? 'person' : 'people'}, {imported.groups} group mapping{imported.groups === 1 ? '' : 's'}, {imported.roles} custom role{imported.roles === 1 ? '' : 's'}.
      </SavedNotice>
      {result.unresolved.length > 0 ? (
        <div role="status" className="rounded border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100">
          <p className="font-medium">Secrets to set here next: these references resolve to nothing on this installation (each is a finding until it does).</p>
          <ul className="mt-1 list-disc pl-5">
            {result.unresolved.map((u) => <li key={u.name}><code>{u.name}</code>, used by {u.used_by.join(', ')}</li>)}
          </ul>
          <p className="mt-1"><Link to="/secrets" className="underline">Set them on Secrets</Link>.</p>
        </div>
      ) : null}
      {result.warnings.length > 0 ? (
        <div className="text-sm">
          <p className="font-medium">Warnings (nothing refused):</p>
          <ul className="list-disc pl-5">{result.warnings.map((w) => <li key={`${w.path}${w.error}`}>{w.path}: {w.error}</li>)}</ul>
        </div>
      ) : null}
    </div>
  );
}
