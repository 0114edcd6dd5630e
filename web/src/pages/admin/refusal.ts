import { ApiError } from '../../api/client';

/**
 * What a refused write says to the person who acted, shaped for showing beside the control:
 * one sentence, then every item the refusal names (holders, routes, problems, findings), and the
 * messages that belong to a particular field of the form.
 */
export interface Refusal {
  code: string | null;
  message: string;
  items: string[];
  /** field name (a form's, or a setting's dotted key) → what is wrong there */
  fields: Record<string, string[]>;
}

/** Spec rule 11's four routes, in words a person can act on. */
export const ADMIN_ROUTE_LABELS: Record<string, string> = {
  'person-grant': 'a person granted admin (People)',
  'group-mapping': 'a group mapped onto admin (Groups)',
  'role-claim': 'a role claim the installation reads, seen carrying admin (Claim names)',
  'admin-grant': 'a non-empty SERVICE_ADMIN_GRANT (the environment)',
};

type Holder = { kind: 'person'; claim: string; value: string } | { kind: 'group'; value: string } | { kind: 'observed'; subject: string; nameClaimValue: string | null };

export function describeHolder(h: Holder): string {
  switch (h.kind) {
    case 'person': return `person ${h.claim}=${h.value} (granted here)`;
    case 'group': return `group ${h.value} (mapped onto it)`;
    case 'observed': return `caller ${h.nameClaimValue ?? h.subject} (seen with it in the role claim)`;
    default: return JSON.stringify(h);
  }
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);
const records = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object') : []);

function add(fields: Record<string, string[]>, field: string, message: string): void {
  (fields[field] ??= []).push(message);
}

/** Any error of a write, as a Refusal; an error that is not the server's answer keeps its message. */
export function refusalOf(error: unknown): Refusal {
  if (!(error instanceof ApiError)) return { code: null, message: String((error as Error)?.message ?? error), items: [], fields: {} };
  const body = error.body ?? {};
  const code = typeof body['code'] === 'string' ? body['code'] : typeof body['error'] === 'string' && body['error'] === 'invalid_import' ? 'invalid_import' : null;
  const said = typeof body['error'] === 'string' ? body['error'] : typeof body['message'] === 'string' ? body['message'] : `the server answered ${error.status}`;
  const fields: Record<string, string[]> = {};
  let items: string[] = [];
  let message = said;
  if (error.status === 403) {
    const missing = error.missingPermissions;
    return { code: 'forbidden', message: `You may not do this: missing permission ${missing.join(', ') || '(not named)'}.`, items: [], fields: {} };
  }
  switch (code) {
    case 'builtin_name':
      add(fields, 'name', `${said}: reader, operator and admin are built-in role names in any case; choose another name.`);
      break;
    case 'unknown_permission': {
      const unknown = strings(body['unknownPermissions']);
      add(fields, 'permissions', `Not in the permission catalog (names compare exactly): ${unknown.join(', ')}.`);
      break;
    }
    case 'unknown_role':
      add(fields, 'roles', `No such role: ${strings(body['unknownRoles']).join(', ')}. Create a custom role first on Roles.`);
      break;
    case 'invalid_name':
      add(fields, 'name', said);
      break;
    case 'invalid_group':
      add(fields, 'value', said);
      break;
    case 'has_holders':
      message = 'This role is still held. Withdraw it from each holder first:';
      items = records(body['holders']).map((h) => describeHolder(h as unknown as Holder));
      break;
    case 'no_admin_route':
      message = 'Refused: this change would leave no route to admin. Keep at least one of these four:';
      items = strings(body['routes']).map((r) => ADMIN_ROUTE_LABELS[r] ?? r);
      break;
    case 'invalid_setting':
      for (const f of records(body['findings'])) {
        const field = typeof f['field'] === 'string' ? f['field'] : 'configuration';
        const text = `${f['severity'] === 'blocking' ? 'Blocking: ' : ''}${String(f['reason'] ?? '')}`;
        add(fields, field, text);
      }
      message = 'The configuration would refuse this value.';
      break;
    case 'literal_secret':
      for (const f of strings(body['fields'])) add(fields, f, 'This field takes a ${NAME} reference, not a value: store the value on Secrets and save "${NAME}" here.');
      message = 'A secret\'s value cannot be stored as a setting.';
      break;
    case 'in_use':
      message = 'Refused while the configuration references it. Change these keys first:';
      items = strings(body['uses']);
      break;
    case 'newer_change':
      message = 'A later change touched the same thing: revert these first (newest first).';
      items = strings(body['newerChanges']).map((id) => `change #${id}`);
      break;
    case 'not_empty':
      message = 'Refused: a restore goes into an empty installation only. These tables hold rows:';
      items = strings(body['tables']);
      break;
    case 'count_mismatch':
      items = records(body['mismatched']).map((m) => `${String(m['table'])}: expected ${String(m['expected'])}, read ${String(m['read'])}`);
      break;
    case 'invalid_import':
      message = 'The import was refused; nothing was applied. Every problem found:';
      items = records(body['problems']).map((p) => `${String(p['path'] || '(document)')}: ${String(p['error'])}`);
      break;
    default:
      break;
  }
  return { code, message, items, fields };
}

/** The messages for one field, and those a form has no field for (shown at the form's top). */
export function splitByField(refusal: Refusal | null, formFields: readonly string[]): { at: (field: string) => string[]; rest: string[] } {
  const fields = refusal?.fields ?? {};
  const rest = Object.entries(fields).filter(([f]) => !formFields.includes(f)).flatMap(([f, m]) => m.map((x) => `${f}: ${x}`));
  return { at: (field) => fields[field] ?? [], rest };
}
