import { useState } from 'react';
import { useServices } from '../../../app/context';
import { usePermission } from '../../../app/identity';
import { Button, EmptyState, PanelError } from '../../../components/ui';
import { permissionMatrix } from '../access-model';
import type { AccessRole, AccessRoles } from '../admin-types';
import { Advisory, AdminDialog, Field, MUTED, NameChecks, ROW, RefusalNotice, SavedNotice, TABLE, TABLE_WRAP, TD, TH, THEAD } from '../admin-ui';
import { type Refusal, refusalOf } from '../refusal';
import { enc, useAccessRoles, useAccessWrite } from './use-access';

type Editing = { mode: 'create' } | { mode: 'edit'; role: AccessRole } | { mode: 'remove'; role: AccessRole } | null;

/** Roles: the built-in three with their holders, the permission matrix, then the custom roles. */
export function RolesPane() {
  const roles = useAccessRoles();
  const canWrite = usePermission('access.write');
  const [editing, setEditing] = useState<Editing>(null);
  const [saved, setSaved] = useState<string | null>(null);
  if (roles.isPending) return <p role="status">Loading roles…</p>;
  if (roles.isError) return <PanelError what="the roles" error={roles.error} retry={() => void roles.refetch()} />;
  const data = roles.data;
  const open = (e: Editing) => { setSaved(null); setEditing(e); };
  return (
    <div className="space-y-6">
      <section aria-labelledby="builtin-roles" className="space-y-2">
        <h2 id="builtin-roles" className="text-lg font-semibold">Built-in roles</h2>
        <ul className="grid gap-2 sm:grid-cols-3">
          {data.builtIn.map((r) => (
            <li key={r.name} className="rounded border border-slate-200 p-3 dark:border-slate-800">
              <p className="font-medium">{r.name}</p>
              <p className={`text-sm ${MUTED}`}>{r.holders} holder{r.holders === 1 ? '' : 's'} · {r.permissions.length} permissions</p>
            </li>
          ))}
        </ul>
      </section>
      {data.findings.length > 0 ? (
        <Advisory title="Findings on the roles">
          <ul className="list-disc pl-5">{data.findings.map((f) => <li key={f.reason}>{f.reason}</li>)}</ul>
        </Advisory>
      ) : null}
      <PermissionTable data={data} />
      <section aria-labelledby="custom-roles" className="space-y-2">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 id="custom-roles" className="text-lg font-semibold">Custom roles</h2>
          {canWrite ? <Button tone="primary" onPress={() => open({ mode: 'create' })}>Create a role</Button> : null}
        </div>
        {saved ? <SavedNotice>{saved}</SavedNotice> : null}
        {data.custom.length === 0 ? (
          <EmptyState title="No custom role yet.">
            <p>A custom role is a named set of permissions from the catalog, added to whatever else a person holds, e.g. an <em>auditor</em> with <code>runs.read</code> and <code>diagnostics.read</code>.</p>
            <p>Grant it on People or map a group onto it on Groups once it exists.</p>
          </EmptyState>
        ) : (
          <div className={TABLE_WRAP}>
            <table aria-label="Custom roles" className={TABLE}>
              <thead className={THEAD}>
                <tr><th scope="col" className={TH}>Role</th><th scope="col" className={TH}>Permissions</th><th scope="col" className={TH}>Holders</th>{canWrite ? <th scope="col" className={TH}><span className="sr-only">Actions</span></th> : null}</tr>
              </thead>
              <tbody>
                {data.custom.map((r) => (
                  <tr key={r.name} data-row tabIndex={-1} className={ROW}>
                    <td className={`${TD} font-medium`}>{r.name}</td>
                    <td className={TD}>
                      {r.permissions.join(', ') || <span className={MUTED}>none</span>}
                      {r.legacyPermissions.length > 0 ? <span className="block text-xs text-amber-800 dark:text-amber-300">no longer in the catalog: {r.legacyPermissions.join(', ')}</span> : null}
                    </td>
                    <td className={`${TD} tabular-nums`}>{r.holders}</td>
                    {canWrite ? (
                      <td className={`${TD} whitespace-nowrap text-right`}>
                        <Button aria-label={`Edit role ${r.name}`} onPress={() => open({ mode: 'edit', role: r })}>Edit</Button>
                        <Button className="ml-2" aria-label={`Remove role ${r.name}`} onPress={() => open({ mode: 'remove', role: r })}>Remove</Button>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {editing && editing.mode !== 'remove' ? (
        <RoleDialog
          role={editing.mode === 'edit' ? editing.role : null}
          catalog={data.permissions}
          onClose={() => setEditing(null)}
          onSaved={(name) => { setEditing(null); setSaved(`Saved role ${name}; its holders have its permissions from their next request.`); }}
        />
      ) : null}
      {editing?.mode === 'remove' ? (
        <RemoveRoleDialog role={editing.role} onClose={() => setEditing(null)} onRemoved={() => { setEditing(null); setSaved(`Removed role ${editing.role.name}.`); }} />
      ) : null}
    </div>
  );
}

function PermissionTable({ data }: { data: AccessRoles }) {
  const matrix = permissionMatrix(data);
  return (
    <section aria-labelledby="matrix" className="space-y-2">
      <h2 id="matrix" className="text-lg font-semibold">Permissions by role</h2>
      <div className={TABLE_WRAP}>
        <table aria-labelledby="matrix" className={TABLE}>
          <thead className={THEAD}>
            <tr>
              <th scope="col" className={TH}>Permission</th>
              {matrix.roles.map((r) => <th key={r.name} scope="col" className={`${TH} text-center`}>{r.name}</th>)}
            </tr>
          </thead>
          {matrix.groups.map((g) => (
            <tbody key={g.name}>
              <tr className="bg-slate-50 dark:bg-slate-900/50">
                <th scope="rowgroup" colSpan={matrix.roles.length + 1} className={`px-3 py-1 text-left text-xs font-semibold tracking-wide uppercase ${MUTED}`}>{g.name}</th>
              </tr>
              {g.rows.map((row) => (
                <tr key={row.permission} className="border-t border-slate-200 dark:border-slate-800">
                  <th scope="row" className="px-3 py-1 text-left font-mono text-xs font-normal">{row.permission}</th>
                  {row.cells.map((c) => (
                    <td key={c.role} className="px-3 py-1 text-center">
                      <span aria-hidden="true" className={c.holds ? 'text-green-700 dark:text-green-400' : 'text-slate-300 dark:text-slate-700'}>{c.holds ? '✓' : '·'}</span>
                      <span className="sr-only">{c.label}</span>
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          ))}
        </table>
      </div>
    </section>
  );
}

function RoleDialog({ role, catalog, onClose, onSaved }: { role: AccessRole | null; catalog: string[]; onClose: () => void; onSaved: (name: string) => void }) {
  const { api } = useServices();
  const [name, setName] = useState(role?.name ?? '');
  const [permissions, setPermissions] = useState<string[]>(role ? [...role.permissions, ...role.legacyPermissions] : []);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const write = useAccessWrite((body: { name: string; permissions: string[] }) =>
    api.send<{ name: string }>('PUT', `/api/access/roles/${enc(body.name)}`, { permissions: body.permissions }));
  const names = [...catalog, ...(role?.legacyPermissions ?? [])];
  const submit = () => {
    setRefusal(null);
    if (!name.trim()) { setRefusal({ code: 'required', message: 'Name the role.', items: [], fields: { name: ['Type a name for the role.'] } }); return; }
    write.mutate({ name: name.trim(), permissions }, { onSuccess: (r) => onSaved(r.name), onError: (e) => setRefusal(refusalOf(e)) });
  };
  return (
    <AdminDialog title={role ? `Edit role ${role.name}` : 'Create a role'} isOpen onClose={onClose} wide>
      <form className="space-y-3" onSubmit={(e) => { e.preventDefault(); submit(); }}>
        {role ? null : <Field label="Role name" value={name} onChange={(e) => setName(e.target.value)} messages={refusal?.fields['name'] ?? []} autoFocus hint="Names fold case; reader, operator and admin are taken." />}
        <NameChecks
          legend="Permissions"
          names={names}
          selected={permissions}
          onChange={setPermissions}
          messages={refusal?.fields['permissions'] ?? []}
          describe={(p) => (catalog.includes(p) ? null : 'no longer in the catalog; kept until you withdraw it')}
        />
        <RefusalNotice refusal={refusal} formFields={role ? ['permissions'] : ['name', 'permissions']} />
        <div className="flex gap-2">
          <Button type="submit" tone="primary" isDisabled={write.isPending}>{write.isPending ? 'Saving…' : 'Save role'}</Button>
          <Button onPress={onClose}>Cancel</Button>
        </div>
      </form>
    </AdminDialog>
  );
}

function RemoveRoleDialog({ role, onClose, onRemoved }: { role: AccessRole; onClose: () => void; onRemoved: () => void }) {
  const { api } = useServices();
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const remove = useAccessWrite(() => api.send<void>('DELETE', `/api/access/roles/${enc(role.name)}`));
  return (
    <AdminDialog title={`Remove role ${role.name}?`} isOpen onClose={onClose}>
      <p className="text-sm">A role cannot be removed while anyone can be seen holding it: withdraw it from each holder first.</p>
      <RefusalNotice refusal={refusal} />
      <div className="flex gap-2">
        <Button tone="danger" isDisabled={remove.isPending} onPress={() => { setRefusal(null); remove.mutate(undefined, { onSuccess: onRemoved, onError: (e) => setRefusal(refusalOf(e)) }); }}>Remove role</Button>
        <Button onPress={onClose}>{refusal ? 'Close' : 'Cancel'}</Button>
      </div>
    </AdminDialog>
  );
}

