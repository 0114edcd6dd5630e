/**
 * `${NAME}` resolution (spec: "A `${NAME}` reference resolves first against the `secrets:` map,
 * then against the environment variable of that name; a reference that resolves to nothing
 * counts as unconfigured"). Stored secrets (the dashboard's secret entities) sit between the two:
 * the caller passes them merged under the file's map, so the file still wins and the environment
 * stays the fallback.
 */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export type Resolution = { value: string } | { unresolved: string[] };

export function resolveReferences(
  raw: string,
  secrets: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>,
): Resolution {
  const unresolved: string[] = [];
  const value = raw.replace(REFERENCE, (_match, name: string) => {
    // Own properties only: `${toString}` or `${constructor}` must not resolve to Object.prototype's members.
    const found = Object.hasOwn(secrets, name) ? secrets[name] : Object.hasOwn(env, name) ? env[name] : undefined;
    if (found === undefined || found === '') {
      unresolved.push(name);
      return '';
    }
    return found;
  });
  return unresolved.length > 0 ? { unresolved } : { value };
}

/** Where one `${NAME}` resolves, in the loader's order: the file's `secrets:` block, a stored secret, the environment. */
export type ReferenceSource = 'file' | 'stored' | 'environment' | 'unresolved';

/**
 * Tells, name by name, where `resolveReferences` finds a value: the first map that has the name
 * decides, and an empty value there resolves nothing (it does not fall through to the next).
 */
export function referenceSources(
  fileSecrets: Readonly<Record<string, string>>,
  storedSecrets: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>,
): (name: string) => ReferenceSource {
  return (name) => {
    const [source, value]: [ReferenceSource, string | undefined] = Object.hasOwn(fileSecrets, name) ? ['file', fileSecrets[name]]
      : Object.hasOwn(storedSecrets, name) ? ['stored', storedSecrets[name]]
      : ['environment', Object.hasOwn(env, name) ? env[name] : undefined];
    return value === undefined || value === '' ? 'unresolved' : source;
  };
}

export function hasReference(raw: string): boolean {
  REFERENCE.lastIndex = 0;
  return REFERENCE.test(raw);
}

/** Nothing but `${NAME}` references (surrounding blanks aside): a value that names its secrets and holds none. */
export function isReferenceOnly(raw: string): boolean {
  return /^\s*(\$\{[A-Za-z_][A-Za-z0-9_]*\}\s*)+$/.test(raw);
}
