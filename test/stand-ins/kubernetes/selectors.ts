/**
 * Label selectors (`a=b`, `a==b`, `a!=b`, `a`, `!a`, `a in (x,y)`, `a notin (x,y)`, comma = and)
 * and field selectors (`metadata.name=`, `metadata.namespace=`, `status.phase=`, with `!=`).
 */
export type Matcher = (labels: Readonly<Record<string, string>>) => boolean;

export function labelSelector(text: string | null): Matcher {
  if (!text) return () => true;
  const requirements = splitTopLevel(text).map(parseRequirement);
  return (labels) => requirements.every((r) => r(labels));
}

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter(Boolean);
}

function parseRequirement(text: string): Matcher {
  const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(text);
  if (set) {
    const [, key, op, list] = set as unknown as [string, string, string, string];
    const values = list.split(',').map((v) => v.trim());
    return op === 'in' ? (l) => key in l && values.includes(l[key]!) : (l) => !(key in l) || !values.includes(l[key]!);
  }
  const unequal = /^([^!=]+)!=(.*)$/.exec(text);
  if (unequal) return (l) => l[unequal[1]!.trim()] !== unequal[2]!.trim();
  const equal = /^([^!=]+)==?(.*)$/.exec(text);
  if (equal) return (l) => l[equal[1]!.trim()] === equal[2]!.trim();
  if (text.startsWith('!')) return (l) => !(text.slice(1).trim() in l);
  return (l) => text in l;
}

/** Field selectors over a flattened view of the object's selectable fields. */
export function fieldSelector(text: string | null): Matcher {
  if (!text) return () => true;
  const checks = text.split(',').map((part) => {
    const m = /^([^!=]+)(!=|==|=)(.*)$/.exec(part.trim());
    if (!m) throw new Error(`invalid field selector "${part}"`);
    const [, field, op, value] = m as unknown as [string, string, string, string];
    return (fields: Readonly<Record<string, string>>) => (op === '!=' ? fields[field] !== value : fields[field] === value);
  });
  return (fields) => checks.every((c) => c(fields));
}

/** Label values: at most 63 characters, alphanumeric at both ends, `-_.` inside (empty allowed). */
export function validLabelValue(value: string): boolean {
  return value === '' || (value.length <= 63 && /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(value));
}

/** Label keys: optional DNS-subdomain prefix and `/`, then a name as for values (not empty). */
export function validLabelKey(key: string): boolean {
  const slash = key.lastIndexOf('/');
  const prefix = slash < 0 ? null : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== null && !validDnsSubdomain(prefix)) return false;
  return name !== '' && validLabelValue(name);
}

export function validDnsSubdomain(name: string): boolean {
  return name.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(name);
}
