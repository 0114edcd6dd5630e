import { parseDocument } from 'yaml';
import type { AccessRecords, PersonRecord } from '../access/access-records.js';
import { foldRoleName } from '../auth/built-in-roles.js';
import { normalizeGroupValue } from '../auth/role-resolution.js';
import { isPlainObject } from '../config/config-reader.js';
import { checkSettingKey } from '../settings/settings-document.js';
import { CONFIG_DOCUMENT_FORMAT, CONFIG_DOCUMENT_VERSION, type ImportProblem } from './config-document.js';

/** The parts of an import to judge further; a part whose shape is wrong is null (its problems are listed). */
export interface ImportedParts {
  configuration: Record<string, unknown> | null;
  access: AccessRecords | null;
}

const TOP_LEVEL = ['format', 'version', 'exported_at', 'exported_by', 'configuration', 'access', 'secrets'];
const ACCESS_KEYS = ['claim_names', 'people', 'groups', 'roles'];
const CLAIM_KEYS = ['role_claim', 'group_claim', 'name_claim'] as const;
const SECRET_KEYS = ['name', 'source', 'used_by'];
/** As the Access surface's routes take them (admin/dto): 1–200 characters, no control characters, not blank. */
const NAME_LIMIT = 200;
const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;
const MAX_LIST = 100;
const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Aliases a YAML body may expand (a billion-laughs document stops here). */
const MAX_ALIASES = 100;

/** YAML (or JSON, which is YAML) text to a value; a syntax error is a problem at the root. */
export function parseConfigText(text: string): { value: unknown } | { problem: ImportProblem } {
  const document = parseDocument(text, { uniqueKeys: true });
  const [error] = document.errors;
  if (error) return { problem: { path: '', error: `the body is not a YAML document: ${error.message.split('\n')[0]}` } };
  try {
    return { value: document.toJS({ maxAliasCount: MAX_ALIASES }) };
  } catch (e) {
    return { problem: { path: '', error: `the body could not be read: ${(e as Error).message}` } };
  }
}

/**
 * Checks an import's shape, every part of it (all problems are listed, not the first): the
 * format and version, the configuration's top-level keys as setting keys, the access records'
 * names and lists, and the secrets list. What the loader and the access rules say about the
 * contents is the import service's to ask.
 */
export function readConfigDocument(body: unknown): { parts: ImportedParts; problems: ImportProblem[] } {
  const problems: ImportProblem[] = [];
  const problem: Problem = (path, error) => void problems.push({ path, error });
  if (!isPlainObject(body)) {
    problem('', `the document must be a mapping with format: ${CONFIG_DOCUMENT_FORMAT} and version: ${CONFIG_DOCUMENT_VERSION}`);
    return { parts: { configuration: null, access: null }, problems };
  }
  for (const key of Object.keys(body).filter((k) => !TOP_LEVEL.includes(k))) problem(key, `unknown key "${key}"`);
  if (body.format !== CONFIG_DOCUMENT_FORMAT) problem('format', `format must be ${CONFIG_DOCUMENT_FORMAT}`);
  if (body.version !== CONFIG_DOCUMENT_VERSION) problem('version', `version ${JSON.stringify(body.version ?? null)} is not one this server reads (${CONFIG_DOCUMENT_VERSION})`);
  for (const key of ['exported_at', 'exported_by']) {
    if (body[key] !== undefined && typeof body[key] !== 'string') problem(key, `${key} must be a string`);
  }
  readSecrets(body.secrets, problem);
  const configuration = readConfiguration(body.configuration, problem);
  const before = problems.length;
  const access = readAccess(body.access, problem);
  // Access records with any problem are not planned: the planner would only repeat it less precisely.
  return { parts: { configuration, access: problems.length > before ? null : access }, problems };
}

type Problem = (path: string, error: string) => void;

/** The configuration less the top-level keys that cannot be settings (each a problem), so the rest is still judged. */
function readConfiguration(value: unknown, problem: Problem): Record<string, unknown> | null {
  if (!isPlainObject(value)) {
    problem('configuration', 'configuration must be a mapping of top-level blocks ({} for none)');
    return null;
  }
  const settings: Record<string, unknown> = {};
  for (const [key, block] of Object.entries(value)) {
    const check = checkSettingKey(key);
    if (check.ok) settings[key] = block;
    else problem(`configuration.${key}`, check.code === 'bootstrap_setting'
      ? `${check.error}; claim names travel in access.claim_names, and an import never changes the authority, audience or enforce`
      : check.error);
  }
  return settings;
}

function readAccess(value: unknown, problem: Problem): AccessRecords | null {
  if (!isPlainObject(value)) {
    problem('access', `access must be a mapping of ${ACCESS_KEYS.join(', ')}`);
    return null;
  }
  for (const key of Object.keys(value).filter((k) => !ACCESS_KEYS.includes(k))) problem(`access.${key}`, `unknown key "${key}"`);
  const claimNames = readClaimNames(value.claim_names, problem);
  const people = readPeople(value.people, problem);
  const groups = readRoleMap(value.groups, 'access.groups', 'a group', normalizeGroupValue, problem);
  const roles = readRoleMap(value.roles, 'access.roles', 'a custom role', foldRoleName, problem);
  if (!claimNames || !people || !groups || !roles) return null;
  return { claim_names: claimNames, people, groups, roles };
}

function readClaimNames(value: unknown, problem: Problem): AccessRecords['claim_names'] | null {
  const path = 'access.claim_names';
  if (!isPlainObject(value)) {
    problem(path, `claim_names must be a mapping of ${CLAIM_KEYS.join(', ')}`);
    return null;
  }
  for (const key of Object.keys(value).filter((k) => !(CLAIM_KEYS as readonly string[]).includes(k))) problem(`${path}.${key}`, `unknown key "${key}"`);
  const names = CLAIM_KEYS.map((key) => (checkName(value[key], `${path}.${key}`, problem) ? (value[key] as string).trim() : null));
  const [role_claim, group_claim, name_claim] = names;
  return role_claim && group_claim && name_claim ? { role_claim, group_claim, name_claim } : null;
}

function readPeople(value: unknown, problem: Problem): PersonRecord[] | null {
  if (!Array.isArray(value)) {
    problem('access.people', 'people must be a list of {claim, value, roles} ([] for none)');
    return null;
  }
  const seen = new Map<string, number>();
  const people: PersonRecord[] = [];
  value.forEach((item, i) => {
    const path = `access.people[${i}]`;
    if (!isPlainObject(item)) return problem(path, 'a person must be a mapping of claim, value and roles');
    for (const key of Object.keys(item).filter((k) => !['claim', 'value', 'roles'].includes(k))) problem(`${path}.${key}`, `unknown key "${key}"`);
    const claimOk = checkName(item.claim, `${path}.claim`, problem);
    const valueOk = checkName(item.value, `${path}.value`, problem);
    const roles = readNames(item.roles, `${path}.roles`, problem);
    if (!claimOk || !valueOk || !roles) return;
    const key = `${item.claim as string}\u0000${item.value as string}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) return problem(path, `the same person as access.people[${earlier}]`);
    seen.set(key, i);
    people.push({ claim: item.claim as string, value: item.value as string, roles });
  });
  return people;
}

/** Groups (value → roles) and custom roles (name → permissions): keys that mean the same (`/ops` and `ops`, `Auditor` and `auditor`) are refused. */
function readRoleMap(value: unknown, path: string, what: string, same: (key: string) => string, problem: Problem): Record<string, string[]> | null {
  if (!isPlainObject(value)) {
    problem(path, `${path.slice('access.'.length)} must be a mapping ({} for none)`);
    return null;
  }
  const seen = new Map<string, string>();
  const out: Record<string, string[]> = {};
  for (const [key, item] of Object.entries(value)) {
    const at = `${path}.${key}`;
    if (!checkName(key, at, problem)) continue;
    const earlier = seen.get(same(key));
    if (earlier !== undefined) {
      problem(at, `${what} named like ${path}.${earlier}`);
      continue;
    }
    seen.set(same(key), key);
    const names = readNames(item, at, problem);
    if (names) out[key] = names;
  }
  return out;
}

function readNames(value: unknown, path: string, problem: Problem): string[] | null {
  if (!Array.isArray(value) || value.length > MAX_LIST) {
    problem(path, `must be a list of at most ${MAX_LIST} names`);
    return null;
  }
  const ok = value.map((name, i) => checkName(name, `${path}[${i}]`, problem));
  return ok.every(Boolean) ? (value as string[]) : null;
}

function checkName(value: unknown, path: string, problem: Problem): boolean {
  if (typeof value !== 'string' || value.length < 1 || value.length > NAME_LIMIT || !NO_CONTROL.test(value) || value.trim() === '') {
    problem(path, `must be a name of 1 to ${NAME_LIMIT} characters, not blank, without control characters`);
    return false;
  }
  return true;
}

/** The secrets list is informational (the import checks every reference on this installation itself), but it must still be well formed. */
function readSecrets(value: unknown, problem: Problem): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) return problem('secrets', 'secrets must be a list of {name, source, used_by}');
  value.forEach((item, i) => {
    const path = `secrets[${i}]`;
    if (!isPlainObject(item)) return problem(path, 'a secret must be a mapping naming it (name); values are never part of the document');
    for (const key of Object.keys(item).filter((k) => !SECRET_KEYS.includes(k))) problem(`${path}.${key}`, `unknown key "${key}": a secret is listed by name only, never with its value`);
    if (typeof item.name !== 'string' || !SECRET_NAME.test(item.name)) problem(`${path}.name`, 'must be a secret name (a letter or underscore followed by letters, digits or underscores)');
  });
}
