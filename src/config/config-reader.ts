import { type Finding, FindingSubsystem, finding } from '../findings/finding.js';
import type { BlockShape, FieldShape, ValueOf } from './config-shape.js';
import { resolveReferences } from './secret-references.js';

type Plain = Record<string, unknown>;

/**
 * The text forms the reader accepts besides the value itself (YAML quoting `"30"` or `"true"` is
 * common); exported so the JSON Schema accepts exactly these too.
 */
export const BOOLEAN_TEXT = /^\s*([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])\s*$/;
/** A decimal integer ("30"), not "0x1e", "1e3" or "". */
export const INTEGER_TEXT = /^\s*\d+\s*$/;
export const DECIMAL_TEXT = /^\s*\d+(\.\d+)?\s*$/;

export function isPlainObject(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An empty map for operator-chosen keys (projects, pipelines, secrets, labels): without a
 * prototype, so a key named `__proto__` is stored like any other instead of vanishing, and a
 * lookup of `constructor` or `toString` finds nothing.
 */
export function emptyMap<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** A value the loader read as a secret: where, and as written (before any `${NAME}` resolved). */
export interface SecretField {
  path: string;
  written: unknown;
}

/**
 * A value whose `${NAME}` references resolve to nothing (spec: it counts as unconfigured): where,
 * the names, and the finding the loader raised for it, so a caller can tell that finding from an
 * invalid value without reading its text.
 */
export interface UnresolvedField {
  path: string;
  names: string[];
  finding: Finding;
}

/** Where a value sits, so each finding names its project, trigger and field. */
export interface Location {
  project?: string;
  trigger?: string;
  /** Dotted path from the file's root, e.g. `projects.shop.repos[0].url`. */
  path: string;
}

/**
 * Reads typed values out of one parsed YAML object. A bad value never throws: it becomes a
 * `configuration` finding at its exact location and the caller's default stands.
 */
export class ConfigReader {
  constructor(
    readonly findings: Finding[],
    private readonly secrets: Readonly<Record<string, string>>,
    private readonly env: Readonly<Record<string, string | undefined>>,
    /** Receives every value read as a secret, as written: the one list of secret-bearing fields is the loader's own reading. */
    private readonly secretFields: SecretField[] | null = null,
    /** Receives every value left unconfigured by a reference that resolves to nothing. */
    private readonly unresolvedFields: UnresolvedField[] | null = null,
  ) {}

  problem(where: Location, reason: string, severity: 'blocking' | 'advisory' = 'blocking'): Finding {
    const found = finding(FindingSubsystem.Configuration, severity, reason, {
      project: where.project ?? null,
      trigger: where.trigger ?? null,
      field: where.path,
    });
    this.findings.push(found);
    return found;
  }

  at(where: Location, key: string): Location {
    const sep = key.startsWith('[') || !where.path ? '' : '.';
    return { ...where, path: `${where.path}${sep}${key}` };
  }

  /**
   * The object at `where`, or an empty one (with a finding when something else stood there). Its
   * keys are those of `shape` (config-shape.ts), or, for maps keyed by the operator's own names,
   * the list given.
   */
  block(value: unknown, where: Location, shape: BlockShape | readonly string[]): Plain {
    if (value === undefined || value === null) return {};
    if (!isPlainObject(value)) {
      this.problem(where, `${where.path} must be a mapping; it was ignored`);
      return {};
    }
    const known = Array.isArray(shape) ? shape : Object.keys((shape as BlockShape).keys);
    for (const key of Object.keys(value)) {
      if (!known.includes(key)) this.problem(this.at(where, key), `unknown key "${key}" was ignored`, 'advisory');
    }
    return value;
  }

  /**
   * `b[key]` of a block read as its shape declares it (type, bound, secret, default), at
   * `where.key`. `fallback` stands in for the declared default where the default is another
   * block's value (a project's agent falls back to the top-level one).
   */
  field<S extends BlockShape, K extends keyof S['keys'] & string>(
    shape: S, b: Plain, where: Location, key: K, fallback?: ValueOf<S['keys'][K]>,
  ): ValueOf<S['keys'][K]> {
    return this.value(shape.keys[key] as S['keys'][K], b[key], this.at(where, key), fallback);
  }

  /** One value read as `shape` declares it, at `where` (for values that do not come straight from their block, e.g. `auth:` under the environment). */
  value<F extends FieldShape>(shape: F, value: unknown, where: Location, fallback?: ValueOf<F>): ValueOf<F> {
    const s = shape as FieldShape;
    const out = (() => {
      switch (s.kind) {
        case 'string': return this.string(value, where, { secret: s.secret });
        case 'enum': return this.string(value, where);
        case 'boolean': return this.boolean(value, where, (fallback as boolean | undefined) ?? s.default);
        case 'integer': return this.integer(value, where, (fallback as number | undefined) ?? s.default, s.min);
        case 'decimal': return this.decimal(value, where, (fallback as number | undefined) ?? s.default ?? 0, s.min);
        case 'string-list': return this.stringList(value, where);
        case 'string-map': return this.stringMap(value, where);
        case 'list-map': return this.listMap(value, where);
        default: throw new Error(`${where.path}: a ${s.kind} is read by its own reader`);
      }
    })();
    return out as ValueOf<F>;
  }

  /** A string with `${NAME}` references resolved; unresolved → null (unconfigured). */
  string(value: unknown, where: Location, opts: { secret?: boolean } = {}): string | null {
    if (value === undefined || value === null) return null;
    if (opts.secret) this.secretFields?.push({ path: where.path, written: value });
    if (typeof value === 'number' || typeof value === 'boolean') value = String(value);
    if (typeof value !== 'string') {
      this.problem(where, `${where.path} must be a string`);
      return null;
    }
    const resolved = resolveReferences(value, this.secrets, this.env);
    if ('unresolved' in resolved) {
      const names = resolved.unresolved.join(', ');
      const consequence = opts.secret ? '; it counts as unconfigured' : '; the value is unset';
      const found = this.problem(where, `${where.path} references ${names}, which is set neither under secrets:, nor as a stored secret, nor in the environment${consequence}`,
        opts.secret ? 'blocking' : 'advisory');
      this.unresolvedFields?.push({ path: where.path, names: resolved.unresolved, finding: found });
      return null;
    }
    return resolved.value === '' ? null : resolved.value;
  }

  boolean(value: unknown, where: Location, fallback: boolean): boolean {
    if (value === undefined || value === null) return fallback;
    if (typeof value === 'boolean') return value;
    if (typeof value === 'string' && BOOLEAN_TEXT.test(value)) return value.trim().toLowerCase() === 'true';
    this.problem(where, `${where.path} must be true or false; using ${fallback}`);
    return fallback;
  }

  integer(value: unknown, where: Location, fallback: number, min = 0): number {
    if (value === undefined || value === null) return fallback;
    const n = typeof value === 'string' ? (INTEGER_TEXT.test(value) ? Number(value) : Number.NaN) : value;
    if (typeof n === 'number' && Number.isInteger(n) && n >= min) return n;
    this.problem(where, `${where.path} must be an integer ≥ ${min}; using ${fallback}`);
    return fallback;
  }

  /** A decimal number ≥ min ("1.25" as a string too). */
  decimal(value: unknown, where: Location, fallback: number, min = 0): number {
    if (value === undefined || value === null) return fallback;
    const n = typeof value === 'string' ? (DECIMAL_TEXT.test(value) ? Number(value) : Number.NaN) : value;
    if (typeof n === 'number' && Number.isFinite(n) && n >= min) return n;
    this.problem(where, `${where.path} must be a number ≥ ${min}; using ${fallback}`);
    return fallback;
  }

  stringList(value: unknown, where: Location): string[] {
    if (value === undefined || value === null) return [];
    const items = typeof value === 'string' ? [value] : value;
    if (!Array.isArray(items)) {
      this.problem(where, `${where.path} must be a list of strings`);
      return [];
    }
    const out: string[] = [];
    items.forEach((item, i) => {
      const s = this.string(item, this.at(where, `[${i}]`));
      if (s !== null) out.push(s);
    });
    return out;
  }

  stringMap(value: unknown, where: Location): Record<string, string> {
    if (value === undefined || value === null) return {};
    if (!isPlainObject(value)) {
      this.problem(where, `${where.path} must be a mapping of names to strings`);
      return {};
    }
    const out = emptyMap<string>();
    for (const [key, item] of Object.entries(value)) {
      const s = this.string(item, this.at(where, key));
      if (s !== null) out[key] = s;
    }
    return out;
  }

  listMap(value: unknown, where: Location): Record<string, string[]> {
    if (value === undefined || value === null) return {};
    if (!isPlainObject(value)) {
      this.problem(where, `${where.path} must be a mapping of names to lists`);
      return {};
    }
    const out = emptyMap<string[]>();
    for (const [key, item] of Object.entries(value)) out[key] = this.stringList(item, this.at(where, key));
    return out;
  }
}
