import { useState } from 'react';
import { useServices } from '../../../app/context';
import { usePermission } from '../../../app/identity';
import { Button, PanelError } from '../../../components/ui';
import { nameClaimWarning } from '../access-model';
import type { AccessOverview, ClaimNames } from '../admin-types';
import { Advisory, Field, MUTED, RefusalNotice, SavedNotice } from '../admin-ui';
import { ADMIN_ROUTE_LABELS, type Refusal, refusalOf } from '../refusal';
import { useAccessOverview, useAccessWrite } from './use-access';

const FIELDS: { key: keyof ClaimNames; label: string; hint: string }[] = [
  { key: 'role_claim', label: 'Role claim', hint: 'The claim holding role names (a flat list; nested role claims cannot be addressed).' },
  { key: 'group_claim', label: 'Group claim', hint: 'The claim holding group values, mapped onto roles on Groups.' },
  { key: 'name_claim', label: 'Name claim', hint: 'The claim naming a caller: grants on People and the attribution of every change.' },
];

/** Claim names: which claims carry roles, groups and the caller's name. */
export function ClaimsPane() {
  const overview = useAccessOverview();
  if (overview.isPending) return <p role="status">Loading claim names…</p>;
  if (overview.isError) return <PanelError what="the claim names" error={overview.error} retry={() => void overview.refetch()} />;
  return <ClaimsForm overview={overview.data} />;
}

function ClaimsForm({ overview }: { overview: AccessOverview }) {
  const { api } = useServices();
  const canWrite = usePermission('access.write');
  const [typed, setTyped] = useState<ClaimNames>(overview.claimNames);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const write = useAccessWrite((body: Partial<ClaimNames>) =>
    api.send<{ claimNames: ClaimNames; findings: { reason: string }[] }>('PUT', '/api/access/claims', body));
  const warning = nameClaimWarning(typed.name_claim);
  const changed = Object.fromEntries(FIELDS.filter((f) => typed[f.key].trim() !== overview.claimNames[f.key]).map((f) => [f.key, typed[f.key].trim()]));
  const submit = () => {
    setRefusal(null);
    setSaved(null);
    if (Object.keys(changed).length === 0) { setSaved('Nothing changed.'); return; }
    write.mutate(changed, {
      onSuccess: (r) => { setTyped(r.claimNames); setSaved('Saved the claim names; every replica reads tokens with them from the next request.'); },
      onError: (e) => setRefusal(refusalOf(e)),
    });
  };
  return (
    <form className="max-w-xl space-y-4" onSubmit={(e) => { e.preventDefault(); submit(); }}>
      {FIELDS.map((f) => (
        <Field
          key={f.key}
          label={f.label}
          value={typed[f.key]}
          readOnly={!canWrite}
          onChange={(e) => setTyped({ ...typed, [f.key]: e.target.value })}
          messages={refusal?.fields[f.key] ?? []}
          hint={`${f.hint} ${overview.savedClaimNames[f.key] !== null ? 'Saved here.' : 'From the bootstrap file or its default.'}`}
        />
      ))}
      {warning ? <Advisory title="The name claim is not sub">{warning}</Advisory> : null}
      <div className="text-sm">
        <p className="font-medium">Routes to admin now</p>
        {overview.adminRoutes.length > 0 ? (
          <ul className="list-disc pl-5">{overview.adminRoutes.map((r) => <li key={r}>{ADMIN_ROUTE_LABELS[r] ?? r}</li>)}</ul>
        ) : <p className={MUTED}>None can be seen: sign in with admin through one of them, or set SERVICE_ADMIN_GRANT.</p>}
      </div>
      <RefusalNotice refusal={refusal} formFields={FIELDS.map((f) => f.key)} />
      {saved ? <SavedNotice>{saved}</SavedNotice> : null}
      {canWrite ? <Button type="submit" tone="primary" isDisabled={write.isPending}>{write.isPending ? 'Saving…' : 'Save claim names'}</Button> : null}
    </form>
  );
}
