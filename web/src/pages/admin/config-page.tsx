import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { Fragment, useId, useMemo, useState } from 'react';
import { ApiError } from '../../api/client';
import { useServices } from '../../app/context';
import { usePermission } from '../../app/identity';
import { Button, EmptyState, PageTitle, PanelError, formatTime } from '../../components/ui';
import type { ConfigLeaf, ConfigOverview, SettingWritten, StoredSettings } from './admin-types';
import { Advisory, FieldMessages, INPUT, MUTED, ROW, RefusalNotice, SavedNotice, TABLE, TABLE_WRAP, TD, TH, THEAD } from './admin-ui';
import { type Refusal, refusalOf } from './refusal';
import { notEditableReason, parseSettingInput, settingInputText, showValue } from './setting-input';

const enc = encodeURIComponent;
const FROM: Record<string, string> = { 'secrets-block': 'the file\'s secrets block', 'stored-secret': 'a stored secret', environment: 'the environment', unresolved: 'nowhere (unresolved)' };

function useSettingWrite() {
  const { api } = useServices();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ key, value, remove }: { key: string; value?: unknown; remove?: boolean }) =>
      remove ? api.send<SettingWritten>('DELETE', `/api/config/settings/${enc(key)}`) : api.send<SettingWritten>('PUT', `/api/config/settings/${enc(key)}`, { value }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['config'] });
      void queryClient.invalidateQueries({ queryKey: ['changes'] });
      void queryClient.invalidateQueries({ queryKey: ['findings'] });
    },
  });
}

function savedText(r: SettingWritten, removed: boolean): string {
  const parts = [removed ? `Removed the stored value at ${r.key}; in force now: ${showValue(r.value)} (${r.source}).` : r.change === null ? `${r.key} already held that value: nothing was written.` : `Saved ${r.key}; applied on every replica within a second, no restart.`];
  if (r.overriddenBy.length > 0) parts.push(`Stored keys below it still win: ${r.overriddenBy.join(', ')}.`);
  for (const w of r.warnings) parts.push(`${w.severity === 'blocking' ? 'Blocking' : 'Note'}${w.field ? ` at ${w.field}` : ''}: ${w.reason}.`);
  return parts.join(' ');
}

/** Configuration: every key in force with its (masked) value and source; stored settings edited. */
export function ConfigPage() {
  const { api } = useServices();
  const canWrite = usePermission('config.write');
  const config = useQuery({ queryKey: ['config', 'overview'], queryFn: () => api.get<ConfigOverview>('/api/config') });
  const stored = useQuery({ queryKey: ['config', 'settings'], queryFn: () => api.get<StoredSettings>('/api/config/settings') });
  const [filter, setFilter] = useState('');
  const [editing, setEditing] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const storedKeys = useMemo(() => new Set(stored.data?.settings.map((s) => s.key) ?? []), [stored.data]);
  const keys = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return (config.data?.keys ?? []).filter((k) => !f || k.key.toLowerCase().includes(f) || showValue(k.value).toLowerCase().includes(f));
  }, [config.data, filter]);

  // A direct link without config.read: one panel naming the permission, not one per read.
  const forbidden = config.error instanceof ApiError && config.error.status === 403;
  return (
    <section className="space-y-6">
      <PageTitle>Configuration</PageTitle>
      {config.isPending ? <p role="status">Loading the configuration…</p> : null}
      {config.isError ? <PanelError what="the configuration" error={config.error} retry={() => void config.refetch()} /> : null}
      {config.data ? (
        <>
          <p className={`text-sm ${MUTED}`}>
            Bootstrap file <code className="break-all">{config.data.file.path}</code> {config.data.file.present ? '' : '(absent: the defaults are in force)'} ·
            revision {config.data.revision ?? 'not read yet'}. A value comes from the default, the file, the environment or the store (saved here), the later winning.
          </p>
          <BootstrapPanel leaves={config.data.bootstrap} />
          {saved ? <SavedNotice>{saved}</SavedNotice> : null}
          {canWrite ? <NewSetting onSaved={setSaved} /> : null}
          <section aria-labelledby="keys-title" className="space-y-2">
            <h2 id="keys-title" className="text-lg font-semibold">Every key in force</h2>
            <div className="max-w-md">
              <label htmlFor="config-filter" className="block text-sm font-medium">Filter keys</label>
              <input id="config-filter" type="search" data-search className={INPUT} value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="e.g. queue or projects.shop" />
            </div>
            {keys.length === 0 ? (
              <EmptyState title={filter ? `No key matches "${filter}".` : 'No key is in force.'}><p>Clear the filter to see every key.</p></EmptyState>
            ) : (
              <div className={TABLE_WRAP}>
                <table aria-labelledby="keys-title" className={TABLE}>
                  <thead className={THEAD}>
                    <tr><th scope="col" className={TH}>Key</th><th scope="col" className={TH}>Value</th><th scope="col" className={TH}>Source</th>{canWrite ? <th scope="col" className={TH}><span className="sr-only">Actions</span></th> : null}</tr>
                  </thead>
                  <tbody>
                    {keys.map((leaf) => (
                      <Fragment key={leaf.key}>
                        <KeyRow leaf={leaf} canWrite={canWrite} editing={editing === leaf.key} onEdit={() => { setSaved(null); setEditing(editing === leaf.key ? null : leaf.key); }} />
                        {editing === leaf.key ? (
                          <tr>
                            <td colSpan={4} className="bg-slate-50 p-3 dark:bg-slate-900">
                              <SettingEditor leaf={leaf} storedHere={storedKeys.has(leaf.key)} onDone={(text) => { setEditing(null); setSaved(text); }} onCancel={() => setEditing(null)} />
                            </td>
                          </tr>
                        ) : null}
                      </Fragment>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </>
      ) : null}
      {forbidden ? null : <StoredSettingsPanel stored={stored} canWrite={canWrite} onSaved={setSaved} />}
    </section>
  );
}

function KeyRow({ leaf, canWrite, editing, onEdit }: { leaf: ConfigLeaf; canWrite: boolean; editing: boolean; onEdit: () => void }) {
  const locked = notEditableReason(leaf.key);
  return (
    <tr data-row tabIndex={-1} className={ROW}>
      <td className={`${TD} font-mono text-xs break-all`}>
        {leaf.key}
        {leaf.bootstrap ? <span className="ml-2 rounded bg-amber-100 px-1.5 py-0.5 font-sans text-xs text-amber-900 dark:bg-amber-900 dark:text-amber-100">needs a restart</span> : null}
      </td>
      <td className={`${TD} max-w-md font-mono text-xs break-all`}>
        {showValue(leaf.value)}
        {leaf.references?.map((r) => (
          <span key={r.name} className={`block font-sans ${r.from === 'unresolved' ? 'text-red-800 dark:text-red-300' : MUTED}`}>
            ${'{'}{r.name}{'}'} resolves from {FROM[r.from] ?? r.from}{r.from === 'unresolved' ? <> — <Link to="/secrets" className="underline">set it on Secrets</Link></> : null}
          </span>
        ))}
      </td>
      <td className={`${TD} whitespace-nowrap`}>{leaf.source}{leaf.variable ? <span className={`block text-xs ${MUTED}`}>{leaf.variable}</span> : null}</td>
      {canWrite ? (
        <td className={`${TD} text-right`}>
          {locked ? <span className={`text-xs ${MUTED}`}>{locked.startsWith('access') ? <Link to="/access" className="underline">on Access</Link> : locked.startsWith('the secrets') ? <Link to="/secrets" className="underline">on Secrets</Link> : 'file or environment'}</span>
            : <Button aria-expanded={editing} aria-label={`Edit ${leaf.key}`} onPress={onEdit}>{editing ? 'Close' : 'Edit'}</Button>}
        </td>
      ) : null}
    </tr>
  );
}

function SettingEditor({ leaf, storedHere, onDone, onCancel }: { leaf: ConfigLeaf; storedHere: boolean; onDone: (text: string) => void; onCancel: () => void }) {
  const id = useId();
  const [text, setText] = useState(settingInputText(leaf.value));
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [typeError, setTypeError] = useState<string | null>(null);
  const write = useSettingWrite();
  const masked = leaf.value === '***';
  const save = () => {
    setRefusal(null);
    const parsed = parseSettingInput(text, masked ? '' : leaf.value);
    if (!parsed.ok) { setTypeError(parsed.error); return; }
    setTypeError(null);
    write.mutate({ key: leaf.key, value: parsed.value }, { onSuccess: (r) => onDone(savedText(r, false)), onError: (e) => setRefusal(refusalOf(e)) });
  };
  const remove = () => {
    setRefusal(null);
    write.mutate({ key: leaf.key, remove: true }, { onSuccess: (r) => onDone(savedText(r, true)), onError: (e) => setRefusal(refusalOf(e)) });
  };
  const here = [...(typeError ? [typeError] : []), ...(refusal?.fields[leaf.key] ?? [])];
  return (
    <form className="space-y-2" onSubmit={(e) => { e.preventDefault(); save(); }}>
      <label htmlFor={id} className="block text-sm font-medium">New value of <code>{leaf.key}</code></label>
      <textarea
        id={id}
        className={`${INPUT} font-mono`}
        rows={Math.min(10, Math.max(1, text.split('\n').length))}
        value={text}
        autoFocus
        onChange={(e) => setText(e.target.value)}
        aria-invalid={here.length > 0 || undefined}
        aria-describedby={`${id}-hint ${id}-err`}
      />
      <p id={`${id}-hint`} className={`text-xs ${MUTED}`}>
        {typeof leaf.value === 'string' && !masked ? 'Saved as text.' : 'JSON (8, true, ["a"], {"k": 1}, null to unset over the file); other text is saved as text.'}
        {masked ? ' This field holds a secret: type a ${NAME} reference and store the value on Secrets.' : ''}
      </p>
      <FieldMessages id={`${id}-err`} messages={here} />
      <RefusalNotice refusal={refusal} formFields={[leaf.key]} />
      <div className="flex flex-wrap gap-2">
        <Button type="submit" tone="primary" isDisabled={write.isPending}>{write.isPending ? 'Saving…' : 'Save setting'}</Button>
        {storedHere ? <Button onPress={remove} isDisabled={write.isPending}>Remove the stored value</Button> : null}
        <Button onPress={onCancel}>Cancel</Button>
      </div>
    </form>
  );
}

function NewSetting({ onSaved }: { onSaved: (text: string) => void }) {
  const [open, setOpen] = useState(false);
  const [key, setKey] = useState('');
  const [text, setText] = useState('');
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [typeError, setTypeError] = useState<string | null>(null);
  const write = useSettingWrite();
  const keyId = useId();
  const valueId = useId();
  if (!open) return <Button onPress={() => setOpen(true)}>Save a setting at any key…</Button>;
  const save = () => {
    setRefusal(null);
    const parsed = parseSettingInput(text, undefined);
    if (!parsed.ok) { setTypeError(parsed.error); return; }
    setTypeError(null);
    write.mutate({ key: key.trim(), value: parsed.value }, {
      onSuccess: (r) => { setOpen(false); setKey(''); setText(''); onSaved(savedText(r, false)); },
      onError: (e) => setRefusal(refusalOf(e)),
    });
  };
  const atKey = [...(refusal?.fields[key.trim()] ?? [])];
  return (
    <form aria-label="Save a setting" className="max-w-2xl space-y-2 rounded border border-slate-200 p-3 dark:border-slate-800" onSubmit={(e) => { e.preventDefault(); save(); }}>
      <div>
        <label htmlFor={keyId} className="block text-sm font-medium">Key</label>
        <input id={keyId} className={`${INPUT} font-mono`} value={key} onChange={(e) => setKey(e.target.value)} placeholder="queue.max_parallel_runs" autoFocus />
      </div>
      <div>
        <label htmlFor={valueId} className="block text-sm font-medium">Value</label>
        <textarea id={valueId} className={`${INPUT} font-mono`} rows={3} value={text} onChange={(e) => setText(e.target.value)} aria-invalid={atKey.length > 0 || !!typeError || undefined} aria-describedby={`${valueId}-err`} />
        <FieldMessages id={`${valueId}-err`} messages={[...(typeError ? [typeError] : []), ...atKey]} />
      </div>
      <p className={`text-xs ${MUTED}`}>As the bootstrap file would hold it at the key (a block: the whole mapping), as JSON; other text is saved as text.</p>
      <RefusalNotice refusal={refusal} formFields={[key.trim()]} />
      <div className="flex gap-2">
        <Button type="submit" tone="primary" isDisabled={write.isPending || !key.trim()}>Save setting</Button>
        <Button onPress={() => setOpen(false)}>Cancel</Button>
      </div>
    </form>
  );
}

function BootstrapPanel({ leaves }: { leaves: ConfigLeaf[] }) {
  if (leaves.length === 0) return null;
  return (
    <Advisory title="Bootstrap settings: they need a restart">
      <p>Read once when the server starts; change them in the bootstrap file or the environment, then restart.</p>
      <ul className="mt-1 list-disc pl-5">
        {leaves.map((l) => (
          <li key={l.key}>
            <code>{l.key}</code> = {showValue(l.value) || '(empty)'} <span className={MUTED}>({l.source}{l.variable ? ` ${l.variable}` : ''})</span>
            {l.restartDue ? <strong> — restart due: the configuration now says {showValue(l.configured)}</strong> : null}
          </li>
        ))}
      </ul>
    </Advisory>
  );
}

function StoredSettingsPanel({ stored, canWrite, onSaved }: { stored: ReturnType<typeof useQuery<StoredSettings>>; canWrite: boolean; onSaved: (t: string) => void }) {
  const write = useSettingWrite();
  const [refused, setRefused] = useState<{ key: string; refusal: Refusal } | null>(null);
  return (
    <section aria-labelledby="stored-title" className="space-y-2">
      <h2 id="stored-title" className="text-lg font-semibold">Stored settings</h2>
      <p className={`text-sm ${MUTED}`}>Values saved here over the bootstrap file. Removing one brings back the file's value or the default.</p>
      {stored.isPending ? <p role="status">Loading stored settings…</p> : null}
      {stored.isError ? <PanelError what="the stored settings" error={stored.error} retry={() => void stored.refetch()} /> : null}
      {stored.data && stored.data.settings.length === 0 ? (
        <EmptyState title="Nothing is stored over the bootstrap file.">
          <p>Edit a key above (or save one at any key) and it is stored in the database, applied on every replica within a second, and listed here with who saved it.</p>
        </EmptyState>
      ) : null}
      {stored.data && stored.data.settings.length > 0 ? (
        <div className={TABLE_WRAP}>
          <table aria-labelledby="stored-title" className={TABLE}>
            <thead className={THEAD}><tr><th scope="col" className={TH}>Key</th><th scope="col" className={TH}>Stored value</th><th scope="col" className={TH}>Saved</th>{canWrite ? <th scope="col" className={TH}><span className="sr-only">Actions</span></th> : null}</tr></thead>
            <tbody>
              {stored.data.settings.map((s) => (
                <Fragment key={s.key}>
                  <tr data-row tabIndex={-1} className={ROW}>
                    <td className={`${TD} font-mono text-xs break-all`}>{s.key}</td>
                    <td className={`${TD} max-w-md font-mono text-xs break-all`}>{showValue(s.value)}</td>
                    <td className={`${TD} text-xs`}>{formatTime(s.updatedAt)}<span className={`block ${MUTED}`}>by {s.updatedBy}</span></td>
                    {canWrite ? (
                      <td className={`${TD} text-right`}>
                        <Button aria-label={`Remove stored ${s.key}`} isDisabled={write.isPending} onPress={() => {
                          setRefused(null);
                          write.mutate({ key: s.key, remove: true }, { onSuccess: (r) => onSaved(savedText(r, true)), onError: (e) => setRefused({ key: s.key, refusal: refusalOf(e) }) });
                        }}>Remove</Button>
                      </td>
                    ) : null}
                  </tr>
                  {refused?.key === s.key ? <tr><td colSpan={4} className="p-2"><RefusalNotice refusal={refused.refusal} /></td></tr> : null}
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
