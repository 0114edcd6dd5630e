import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useServices } from '../../../app/context';
import { usePermission } from '../../../app/identity';
import { Button, EmptyState, PanelError } from '../../../components/ui';
import type { AccessGroup, AccessGroups } from '../admin-types';
import { AdminDialog, Field, MUTED, NameChecks, ROW, RefusalNotice, SavedNotice, TABLE, TABLE_WRAP, TD, TH, THEAD } from '../admin-ui';
import { type Refusal, refusalOf } from '../refusal';
import { enc, useAccessOverview, useAccessWrite, useRoleNames } from './use-access';

/** Groups: every group value that arrived or is mapped, the roles it grants, the mapping edited. */
export function GroupsPane() {
  const { api } = useServices();
  const canWrite = usePermission('access.write');
  const overview = useAccessOverview();
  const groups = useQuery({ queryKey: ['access', 'groups'], queryFn: () => api.get<AccessGroups>('/api/access/groups') });
  const [editing, setEditing] = useState<{ group: AccessGroup | null } | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const groupClaim = overview.data?.claimNames.group_claim ?? 'groups';
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className={`text-sm ${MUTED}`}>Values of the <code>{groupClaim}</code> claim; a caller in two mapped groups holds both sets of roles.</p>
        {canWrite ? <Button tone="primary" onPress={() => { setSaved(null); setEditing({ group: null }); }}>Map a group</Button> : null}
      </div>
      {saved ? <SavedNotice>{saved}</SavedNotice> : null}
      {groups.isPending ? <p role="status">Loading groups…</p> : null}
      {groups.isError ? <PanelError what="the groups" error={groups.error} retry={() => void groups.refetch()} /> : null}
      {groups.data && groups.data.groups.length === 0 ? (
        <EmptyState title="No group has arrived and none is mapped.">
          <p>When someone signs in with a <code>{groupClaim}</code> claim, each of its values is listed here, ready to be mapped onto roles.</p>
          <p>You can also map a group before anyone arrives with it: <strong>Map a group</strong>, with the value exactly as the directory sends it (one leading slash is ignored).</p>
        </EmptyState>
      ) : null}
      {groups.data && groups.data.groups.length > 0 ? (
        <div className={TABLE_WRAP}>
          <table aria-label="Groups" className={TABLE}>
            <thead className={THEAD}>
              <tr><th scope="col" className={TH}>Group</th><th scope="col" className={TH}>Roles it grants</th><th scope="col" className={TH}>Seen with</th>{canWrite ? <th scope="col" className={TH}><span className="sr-only">Actions</span></th> : null}</tr>
            </thead>
            <tbody>
              {groups.data.groups.map((g) => (
                <tr key={g.value} data-row tabIndex={-1} className={ROW}>
                  <td className={`${TD} font-medium break-all`}>{g.value}</td>
                  <td className={TD}>{g.roles.length > 0 ? g.roles.join(', ') : <span className={MUTED}>{g.mapped ? 'none' : 'not mapped'}</span>}</td>
                  <td className={`${TD} tabular-nums`}>{g.seenWith} caller{g.seenWith === 1 ? '' : 's'}</td>
                  {canWrite ? (
                    <td className={`${TD} text-right`}><Button aria-label={`Edit mapping of ${g.value}`} onPress={() => { setSaved(null); setEditing({ group: g }); }}>Edit mapping</Button></td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {editing ? (
        <MappingDialog
          group={editing.group}
          onClose={() => setEditing(null)}
          onSaved={(value, roles) => {
            setEditing(null);
            setSaved(roles.length ? `Group ${value} now grants ${roles.join(', ')}; this applies from each member's next request.` : `Group ${value} is no longer mapped; its members lose those roles from their next request.`);
          }}
        />
      ) : null}
    </div>
  );
}

function MappingDialog({ group, onClose, onSaved }: { group: AccessGroup | null; onClose: () => void; onSaved: (value: string, roles: string[]) => void }) {
  const { api } = useServices();
  const roleNames = useRoleNames();
  const [value, setValue] = useState(group?.value ?? '');
  const [roles, setRoles] = useState<string[]>(group?.roles ?? []);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const write = useAccessWrite((body: { value: string; roles: string[] }) =>
    api.send<{ value: string; roles: string[] }>('PUT', `/api/access/groups/${enc(body.value)}`, { roles: body.roles }));
  const submit = () => {
    setRefusal(null);
    if (!value.trim()) { setRefusal({ code: 'required', message: 'Name the group.', items: [], fields: { value: ['Type the group value as the directory sends it.'] } }); return; }
    write.mutate({ value: value.trim(), roles }, { onSuccess: (r) => onSaved(r.value, r.roles), onError: (e) => setRefusal(refusalOf(e)) });
  };
  return (
    <AdminDialog title={group ? `Roles of group ${group.value}` : 'Map a group'} isOpen onClose={onClose}>
      <form className="space-y-3" onSubmit={(e) => { e.preventDefault(); submit(); }}>
        {group ? null : <Field label="Group value" value={value} onChange={(e) => setValue(e.target.value)} messages={refusal?.fields['value'] ?? []} autoFocus hint="Compared exactly; one leading slash is ignored." />}
        <NameChecks legend="Roles the group grants" names={roleNames} selected={roles} onChange={setRoles} messages={refusal?.fields['roles'] ?? []} />
        <p className={`text-xs ${MUTED}`}>No role checked removes the mapping.</p>
        <RefusalNotice refusal={refusal} formFields={group ? ['roles'] : ['value', 'roles']} />
        <div className="flex gap-2">
          <Button type="submit" tone="primary" isDisabled={write.isPending}>{write.isPending ? 'Saving…' : 'Save mapping'}</Button>
          <Button onPress={onClose}>Cancel</Button>
        </div>
      </form>
    </AdminDialog>
  );
}
