import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { useServices } from '../../../app/context';
import { usePermission } from '../../../app/identity';
import { accessRoute } from '../../../app/router';
import { Button, EmptyState, PanelError, formatTime } from '../../../components/ui';
import { grantedRoles, personRoles } from '../access-model';
import type { AccessGrant, AccessPeoplePage, AccessPerson } from '../admin-types';
import { AdminDialog, Field, INPUT, MUTED, NameChecks, ROW, RefusalNotice, SavedNotice, TABLE, TABLE_WRAP, TD, TH, THEAD } from '../admin-ui';
import { type Refusal, refusalOf } from '../refusal';
import { enc, useAccessOverview, useAccessWrite, useRoleNames } from './use-access';

const PAGE = 25;

type Editing = { mode: 'add' } | { mode: 'edit'; person: AccessPerson } | { mode: 'remove'; person: AccessPerson } | null;

/** People: everyone seen or added, searchable and paged by the server; grants edited from the row. */
export function PeoplePane() {
  const { api } = useServices();
  const search = accessRoute.useSearch();
  const navigate = useNavigate();
  const canWrite = usePermission('access.write');
  const overview = useAccessOverview();
  const [typed, setTyped] = useState(search.q ?? '');
  const [editing, setEditing] = useState<Editing>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const offset = search.offset ?? 0;
  const people = useQuery({
    queryKey: ['access', 'people', search.q ?? '', offset],
    queryFn: ({ signal }) => api.get<AccessPeoplePage>(`/api/access/people?limit=${PAGE}&offset=${offset}${search.q ? `&q=${enc(search.q)}` : ''}`, { signal }),
    placeholderData: keepPreviousData,
  });

  // The search follows typing (after a pause) into the URL, so a search is a link.
  useEffect(() => {
    const q = typed.trim();
    if (q === (search.q ?? '')) return;
    const timer = setTimeout(() => void navigate({ to: '/access/$pane', params: { pane: 'people' }, search: q ? { q } : {}, replace: true }), 300);
    return () => clearTimeout(timer);
  }, [typed, search.q, navigate]);

  const page = (to: number) => void navigate({ to: '/access/$pane', params: { pane: 'people' }, search: { ...search, offset: to > 0 ? to : undefined } });
  const claims = overview.data?.claimNames;
  const data = people.data;

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-end gap-3">
        <div className="min-w-64 flex-1">
          <label htmlFor="people-search" className="block text-sm font-medium">Search people</label>
          <input
            id="people-search"
            type="search"
            data-search
            className={INPUT}
            placeholder="name, subject or role"
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
          />
        </div>
        {canWrite ? <Button tone="primary" onPress={() => { setSaved(null); setEditing({ mode: 'add' }); }}>Add a person</Button> : null}
      </div>
      {saved ? <SavedNotice>{saved}</SavedNotice> : null}
      {people.isPending ? <p role="status">Loading people…</p> : null}
      {people.isError ? <PanelError what="the people" error={people.error} retry={() => void people.refetch()} /> : null}
      {data && data.people.length === 0 ? (
        search.q ? (
          <EmptyState title={`Nobody matches "${search.q}".`}><p>The search matches the name, the subject and the role names. Clear it to see everyone.</p></EmptyState>
        ) : (
          <EmptyState title="Nobody has signed in yet, and nobody was added.">
            <p>Everyone who signs in is listed here with the roles they arrived with, for {overview.data?.observationWindowDays ?? 'the observation window\'s'} days after they were last seen.</p>
            <p>To give someone roles before they first sign in, use <strong>Add a person</strong> with their <code>{claims?.name_claim ?? 'name claim'}</code> value.</p>
          </EmptyState>
        )
      ) : null}
      {data && data.people.length > 0 ? (
        <>
          <div className={TABLE_WRAP}>
            <table aria-label="People" className={TABLE}>
              <thead className={THEAD}>
                <tr><th scope="col" className={TH}>Person</th><th scope="col" className={TH}>Last seen</th><th scope="col" className={TH}>Roles and where they come from</th>{canWrite ? <th scope="col" className={TH}><span className="sr-only">Actions</span></th> : null}</tr>
              </thead>
              <tbody>
                {data.people.map((p) => (
                  <tr key={`${p.claim}\u0000${p.value}`} data-row tabIndex={-1} className={ROW}>
                    <td className={TD}>
                      <span className="font-medium break-all">{p.value}</span>
                      <span className={`block text-xs ${MUTED}`}>{p.claim}{p.subject && p.subject !== p.value ? ` · subject ${p.subject}` : ''}</span>
                    </td>
                    <td className={`${TD} whitespace-nowrap`}>{p.lastSeen ? formatTime(p.lastSeen) : <em>not signed in yet</em>}</td>
                    <td className={TD}>
                      {p.roles.length === 0 ? <span className={MUTED}>no roles</span> : (
                        <ul className="space-y-0.5">
                          {personRoles(p, claims).map((r) => (
                            <li key={r.role}><span className="font-medium">{r.role}</span> <span className={`text-xs ${MUTED}`}>— {r.sources.join('; ')}</span></li>
                          ))}
                        </ul>
                      )}
                    </td>
                    {canWrite ? (
                      <td className={`${TD} whitespace-nowrap text-right`}>
                        <Button aria-label={`Edit roles of ${p.value}`} onPress={() => { setSaved(null); setEditing({ mode: 'edit', person: p }); }}>Grant or withdraw</Button>
                        <Button className="ml-2" aria-label={`Remove ${p.value}`} onPress={() => { setSaved(null); setEditing({ mode: 'remove', person: p }); }}>Remove</Button>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav aria-label="People pages" className="flex items-center gap-3 text-sm">
            <Button isDisabled={offset === 0} onPress={() => page(Math.max(0, offset - PAGE))}>Previous</Button>
            <span>{offset + 1}–{offset + data.people.length} of {data.total}</span>
            <Button isDisabled={offset + PAGE >= data.total} onPress={() => page(offset + PAGE)}>Next</Button>
          </nav>
        </>
      ) : null}
      {editing && editing.mode !== 'remove' ? (
        <GrantDialog
          person={editing.mode === 'edit' ? editing.person : null}
          nameClaim={claims?.name_claim ?? 'sub'}
          onClose={() => setEditing(null)}
          onSaved={(grant) => {
            setEditing(null);
            setSaved(`Saved roles of ${grant.claim}=${grant.value}: ${grant.roles.join(', ') || 'none granted here'}. It applies from their next request.${grant.findings.map((f) => ` Note: ${f.reason}.`).join('')}`);
          }}
        />
      ) : null}
      {editing?.mode === 'remove' ? (
        <RemovePersonDialog person={editing.person} onClose={() => setEditing(null)} onRemoved={() => { setEditing(null); setSaved(`Removed ${editing.person.value}: their grants and their record.`); }} />
      ) : null}
    </div>
  );
}

function GrantDialog({ person, nameClaim, onClose, onSaved }: { person: AccessPerson | null; nameClaim: string; onClose: () => void; onSaved: (g: AccessGrant) => void }) {
  const { api } = useServices();
  const roleNames = useRoleNames();
  const [claim, setClaim] = useState(person?.claim ?? nameClaim);
  const [value, setValue] = useState(person?.value ?? '');
  const [roles, setRoles] = useState<string[]>(person ? grantedRoles(person) : []);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const write = useAccessWrite((body: { claim: string; value: string; roles: string[] }) =>
    api.send<AccessGrant>('PUT', `/api/access/people/${enc(body.claim)}/${enc(body.value)}`, { roles: body.roles }));
  const others = person ? personRoles(person).filter((r) => !r.granted || r.sources.length > 1) : [];
  const submit = () => {
    setRefusal(null);
    if (!value.trim()) { setRefusal({ code: 'required', message: 'Name the person.', items: [], fields: { value: ['Type the claim value that names the person.'] } }); return; }
    write.mutate({ claim: claim.trim(), value: value.trim(), roles }, { onSuccess: onSaved, onError: (e) => setRefusal(refusalOf(e)) });
  };
  return (
    <AdminDialog title={person ? `Roles granted to ${person.value}` : 'Add a person'} isOpen onClose={onClose}>
      <form className="space-y-3" onSubmit={(e) => { e.preventDefault(); submit(); }}>
        {person ? null : (
          <>
            <Field label="Claim" value={claim} onChange={(e) => setClaim(e.target.value)} messages={refusal?.fields['claim'] ?? []}
              hint={claim.trim() === nameClaim ? `The name claim in force.` : `Not the name claim in force (${nameClaim}): this grant grants nothing until it is.`} />
            <Field label="Value" value={value} onChange={(e) => setValue(e.target.value)} messages={refusal?.fields['value'] ?? []} autoFocus
              hint="Exactly as the directory sends it (compared case-sensitively)." />
          </>
        )}
        <NameChecks legend="Roles granted here" names={roleNames} selected={roles} onChange={setRoles} messages={refusal?.fields['roles'] ?? []} />
        {others.length > 0 ? (
          <p className={`text-sm ${MUTED}`}>Also held, not through a grant here: {others.map((r) => `${r.role} (${r.sources.filter((s) => s !== 'granted here').join('; ')})`).join(', ')}. Change those where they come from.</p>
        ) : null}
        <RefusalNotice refusal={refusal} formFields={person ? ['roles'] : ['claim', 'value', 'roles']} />
        <div className="flex gap-2">
          <Button type="submit" tone="primary" isDisabled={write.isPending}>{write.isPending ? 'Saving…' : 'Save'}</Button>
          <Button onPress={onClose}>Cancel</Button>
        </div>
      </form>
    </AdminDialog>
  );
}

function RemovePersonDialog({ person, onClose, onRemoved }: { person: AccessPerson; onClose: () => void; onRemoved: () => void }) {
  const { api } = useServices();
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const remove = useAccessWrite(() => api.send<void>('DELETE', `/api/access/people/${enc(person.claim)}/${enc(person.value)}`));
  return (
    <AdminDialog title={`Remove ${person.value}?`} isOpen onClose={onClose}>
      <p className="text-sm">This removes their grants and what was recorded of them. If they sign in again they are seen again, with the roles the directory gives them.</p>
      <RefusalNotice refusal={refusal} />
      <div className="flex gap-2">
        <Button tone="danger" isDisabled={remove.isPending} onPress={() => { setRefusal(null); remove.mutate(undefined, { onSuccess: onRemoved, onError: (e) => setRefusal(refusalOf(e)) }); }}>Remove</Button>
        <Button onPress={onClose}>Cancel</Button>
      </div>
    </AdminDialog>
  );
}
