import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useServices } from '../../app/context';
import { usePermission } from '../../app/identity';
import { Button, EmptyState, PageTitle, PanelError, formatTime } from '../../components/ui';
import type { ConfigOverview, StoredSecret, StoredSecrets } from './admin-types';
import { Advisory, AdminDialog, Field, MUTED, ROW, RefusalNotice, SavedNotice, TABLE, TABLE_WRAP, TD, TH, THEAD } from './admin-ui';
import { type Refusal, refusalOf } from './refusal';
import { secretReferences } from './secret-references';

const enc = encodeURIComponent;
const FROM: Record<string, string> = { 'secrets-block': 'the file\'s secrets block', 'stored-secret': 'stored here', environment: 'the environment', unresolved: 'nowhere: unresolved' };

function useSecretWrites() {
  const { api } = useServices();
  const queryClient = useQueryClient();
  const done = () => {
    void queryClient.invalidateQueries({ queryKey: ['secrets'] });
    void queryClient.invalidateQueries({ queryKey: ['config'] });
    void queryClient.invalidateQueries({ queryKey: ['changes'] });
    void queryClient.invalidateQueries({ queryKey: ['findings'] });
  };
  const save = useMutation({ mutationFn: ({ name, value }: { name: string; value: string }) => api.send<{ name: string; usedBy: string[] }>('PUT', `/api/secrets/${enc(name)}`, { value }), onSuccess: done });
  const remove = useMutation({ mutationFn: (name: string) => api.send<void>('DELETE', `/api/secrets/${enc(name)}`), onSuccess: done });
  return { save, remove };
}

/** Secrets: names, where each is used and where it resolves; values are written, never shown. */
export function SecretsPage() {
  const { api } = useServices();
  const canWrite = usePermission('secrets.write');
  const canReadConfig = usePermission('config.read');
  const secrets = useQuery({ queryKey: ['secrets'], queryFn: () => api.get<StoredSecrets>('/api/secrets') });
  const config = useQuery({ queryKey: ['config', 'overview'], queryFn: () => api.get<ConfigOverview>('/api/config'), enabled: canReadConfig });
  const [name, setName] = useState('');
  const [saved, setSaved] = useState<string | null>(null);
  const [removing, setRemoving] = useState<StoredSecret | null>(null);
  const valueInput = useRef<HTMLInputElement>(null);
  const keyOk = secrets.data?.key === 'ok';
  const references = config.data ? secretReferences(config.data) : [];
  const setFor = (n: string) => { setName(n); setSaved(null); valueInput.current?.focus(); };

  return (
    <section className="space-y-6">
      <PageTitle>Secrets</PageTitle>
      <p className={`text-sm ${MUTED}`}>A configuration value names a secret as <code>{'${NAME}'}</code>; a stored secret is encrypted under <code>SERVICE_SECRETS_KEY</code> and resolves on every replica within a second. Values are never shown or sent back.</p>
      {secrets.isPending ? <p role="status">Loading secrets…</p> : null}
      {secrets.isError ? <PanelError what="the secrets" error={secrets.error} retry={() => void secrets.refetch()} /> : null}
      {secrets.data && !keyOk ? (
        <Advisory title={`SERVICE_SECRETS_KEY is ${secrets.data.key === 'missing' ? 'not set' : 'invalid'}`}>
          Secrets cannot be saved until the server runs with a key of 32 random bytes in base64 (<code>openssl rand -base64 32</code>) in its environment.
          {secrets.data.key === 'invalid' ? ' Stored secrets cannot be read with the key given now.' : ''}
        </Advisory>
      ) : null}
      {saved ? <SavedNotice>{saved}</SavedNotice> : null}
      {canWrite && keyOk ? <SetSecretForm name={name} setName={setName} valueInput={valueInput} onSaved={(t) => { setName(''); setSaved(t); }} /> : null}
      {secrets.data ? (
        <section aria-labelledby="stored-secrets" className="space-y-2">
          <h2 id="stored-secrets" className="text-lg font-semibold">Stored secrets</h2>
          {secrets.data.secrets.length === 0 ? (
            <EmptyState title="No secret is stored yet.">
              <p>Set one above with the name a configuration value references, e.g. <code>SHOP_TOKEN</code> for <code>auth_secret: {'${SHOP_TOKEN}'}</code>. {references.some((r) => r.from === 'unresolved') ? 'The references below that resolve nowhere are the ones to set first.' : ''}</p>
            </EmptyState>
          ) : (
            <div className={TABLE_WRAP}>
              <table aria-labelledby="stored-secrets" className={TABLE}>
                <thead className={THEAD}><tr><th scope="col" className={TH}>Name</th><th scope="col" className={TH}>Used by</th><th scope="col" className={TH}>Readable</th><th scope="col" className={TH}>Saved</th>{canWrite ? <th scope="col" className={TH}><span className="sr-only">Actions</span></th> : null}</tr></thead>
                <tbody>
                  {secrets.data.secrets.map((s) => (
                    <tr key={s.name} data-row tabIndex={-1} className={ROW}>
                      <td className={`${TD} font-mono text-xs`}>{s.name}</td>
                      <td className={`${TD} font-mono text-xs break-all`}>{s.usedBy.length ? s.usedBy.join(', ') : <span className={`font-sans ${MUTED}`}>no configuration key</span>}</td>
                      <td className={TD}>{s.readable ? 'yes' : <strong className="text-red-800 dark:text-red-300">no: the current key cannot decrypt it</strong>}</td>
                      <td className={`${TD} text-xs`}>{formatTime(s.updatedAt)}<span className={`block ${MUTED}`}>by {s.updatedBy}</span></td>
                      {canWrite ? (
                        <td className={`${TD} whitespace-nowrap text-right`}>
                          {keyOk ? <Button aria-label={`Replace ${s.name}`} onPress={() => setFor(s.name)}>Replace</Button> : null}
                          <Button className="ml-2" aria-label={`Delete ${s.name}`} onPress={() => { setSaved(null); setRemoving(s); }}>Delete</Button>
                        </td>
                      ) : null}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      ) : null}
      {canReadConfig ? (
        <section aria-labelledby="references" className="space-y-2">
          <h2 id="references" className="text-lg font-semibold">Referenced by the configuration</h2>
          {config.isError ? <PanelError what="the configuration's references" error={config.error} retry={() => void config.refetch()} /> : null}
          {config.data && references.length === 0 ? (
            <EmptyState title="No configuration value references a secret.">
              <p>Write <code>{'${NAME}'}</code> where a value is secret (a repository's <code>auth_secret</code>, <code>agent.api_key</code>, webhook secrets) and set NAME here.</p>
            </EmptyState>
          ) : null}
          {references.length > 0 ? (
            <div className={TABLE_WRAP}>
              <table aria-labelledby="references" className={TABLE}>
                <thead className={THEAD}><tr><th scope="col" className={TH}>Name</th><th scope="col" className={TH}>Resolves from</th><th scope="col" className={TH}>Used by</th>{canWrite && keyOk ? <th scope="col" className={TH}><span className="sr-only">Actions</span></th> : null}</tr></thead>
                <tbody>
                  {references.map((r) => (
                    <tr key={r.name} data-row tabIndex={-1} className={ROW}>
                      <td className={`${TD} font-mono text-xs`}>{r.name}</td>
                      <td className={`${TD} ${r.from === 'unresolved' ? 'font-medium text-red-800 dark:text-red-300' : ''}`}>{FROM[r.from] ?? r.from}</td>
                      <td className={`${TD} font-mono text-xs break-all`}>{r.usedBy.join(', ')}</td>
                      {canWrite && keyOk ? (
                        <td className={`${TD} text-right`}>{r.from === 'unresolved' ? <Button aria-label={`Set ${r.name}`} onPress={() => setFor(r.name)}>Set</Button> : null}</td>
                      ) : null}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </section>
      ) : null}
      {removing ? <RemoveSecretDialog secret={removing} onClose={() => setRemoving(null)} onRemoved={() => { setSaved(`Deleted secret ${removing.name}.`); setRemoving(null); }} /> : null}
    </section>
  );
}

function SetSecretForm({ name, setName, valueInput, onSaved }: { name: string; setName: (n: string) => void; valueInput: React.RefObject<HTMLInputElement | null>; onSaved: (text: string) => void }) {
  const { save } = useSecretWrites();
  const [value, setValue] = useState('');
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const submit = () => {
    setRefusal(null);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name.trim())) {
      setRefusal({ code: 'invalid_name', message: 'Check the name.', items: [], fields: { name: ['A letter or underscore, then letters, digits or underscores (like an environment variable).'] } });
      return;
    }
    if (value === '') { setRefusal({ code: 'required', message: 'Type the value.', items: [], fields: { value: ['Type the secret\'s value.'] } }); return; }
    save.mutate({ name: name.trim(), value }, {
      onSuccess: (r) => {
        // The value leaves the page as soon as it is stored: the field, and the request's record.
        setValue('');
        save.reset();
        onSaved(`Saved secret ${r.name}${r.usedBy.length ? `, used by ${r.usedBy.join(', ')}` : ''}. It resolves on every replica within a second.`);
      },
      onError: (e) => setRefusal(refusalOf(e)),
    });
  };
  return (
    <form aria-label="Set a secret" className="max-w-xl space-y-3 rounded border border-slate-200 p-3 dark:border-slate-800" onSubmit={(e) => { e.preventDefault(); submit(); }}>
      <h2 className="text-lg font-semibold">Set or replace a secret</h2>
      <Field label="Name" value={name} onChange={(e) => setName(e.target.value)} messages={refusal?.fields['name'] ?? []} autoComplete="off" spellCheck={false} hint="As ${NAME} references it; saving an existing name replaces its value." />
      <Field label="Value" type="password" ref={valueInput} value={value} onChange={(e) => setValue(e.target.value)} messages={refusal?.fields['value'] ?? []} autoComplete="new-password" hint="Written once, never shown again." />
      <RefusalNotice refusal={refusal} formFields={['name', 'value']} />
      <Button type="submit" tone="primary" isDisabled={save.isPending}>{save.isPending ? 'Saving…' : 'Save secret'}</Button>
    </form>
  );
}

function RemoveSecretDialog({ secret, onClose, onRemoved }: { secret: StoredSecret; onClose: () => void; onRemoved: () => void }) {
  const { remove } = useSecretWrites();
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  return (
    <AdminDialog title={`Delete secret ${secret.name}?`} isOpen onClose={onClose}>
      <p className="text-sm">{secret.usedBy.length ? `It is referenced by ${secret.usedBy.join(', ')}: change those keys first, or the delete is refused.` : 'No configuration key references it.'} A deleted value cannot be read back.</p>
      <RefusalNotice refusal={refusal} />
      <div className="flex gap-2">
        <Button tone="danger" isDisabled={remove.isPending} onPress={() => { setRefusal(null); remove.mutate(secret.name, { onSuccess: onRemoved, onError: (e) => setRefusal(refusalOf(e)) }); }}>Delete secret</Button>
        <Button onPress={onClose}>{refusal ? 'Close' : 'Cancel'}</Button>
      </div>
    </AdminDialog>
  );
}
