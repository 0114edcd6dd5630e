/**
 * The kinds of key a block of the bootstrap file holds, and the helpers that declare them. Apart
 * from `config-shape.ts` (which declares the file's keys with them) so that a registry elsewhere
 * (a sandbox backend's own keys) can declare its keys without importing the configuration.
 */
export type FieldShape =
  | TextShape | FlagShape | IntegerShape | DecimalShape | ChoiceShape | QuantityShape
  | { kind: 'string-list' } | { kind: 'string-map' } | { kind: 'list-map' }
  | BlockShape | MapShape | ListShape;

/** A string (a number or boolean is taken as its text); `${NAME}` references resolve. */
export interface TextShape { kind: 'string'; secret?: boolean; required?: boolean; pattern?: string; default?: string }
export interface FlagShape { kind: 'boolean'; default: boolean }
export interface IntegerShape { kind: 'integer'; min: number; default: number }
export interface DecimalShape { kind: 'decimal'; min: number; default?: number }
/** A string that must be one of `values` (what happens otherwise is the reader's, key by key). */
export interface ChoiceShape { kind: 'enum'; values: readonly string[]; required?: boolean; default?: string }
/** Kubernetes-style quantity: cores (`500m`) or bytes (`16Gi`); `pattern` is what quantities.ts parses. */
export interface QuantityShape { kind: 'quantity'; pattern: string; default?: number | string }
/** A mapping of fixed keys; `required`: keys without which the entry is not loaded. */
export interface BlockShape { kind: 'block'; keys: Record<string, FieldShape>; required?: readonly string[]; nullable?: boolean; docs?: string }
/** A mapping whose keys the operator names (projects, pipelines); `reserved`: names refused. */
export interface MapShape { kind: 'map'; of: FieldShape; reserved?: readonly string[] }
export interface ListShape { kind: 'list'; of: FieldShape }

export const text = (opts: Omit<TextShape, 'kind'> = {}): TextShape => ({ kind: 'string', ...opts });
export const flag = (fallback: boolean): FlagShape => ({ kind: 'boolean', default: fallback });
export const integer = (min: number, fallback: number): IntegerShape => ({ kind: 'integer', min, default: fallback });
export const decimal = (min: number, fallback?: number): DecimalShape => ({ kind: 'decimal', min, ...(fallback === undefined ? {} : { default: fallback }) });
export const choice = (values: readonly string[], opts: Omit<ChoiceShape, 'kind' | 'values'> = {}): ChoiceShape => ({ kind: 'enum', values, ...opts });
export const list = { kind: 'string-list' } as const;
export const names = { kind: 'string-map' } as const;
export const lists = { kind: 'list-map' } as const;
/** Blocks are optional and `key:` alone is the same as leaving the block out, unless `nullable: false`. */
export const block = <K extends Record<string, FieldShape>>(keys: K, opts: Omit<BlockShape, 'kind' | 'keys'> = {}) =>
  ({ kind: 'block', keys, ...opts }) as const satisfies BlockShape;

/** What `ConfigReader.field` gives for a key of each kind. */
export type ValueOf<F> =
  F extends IntegerShape | DecimalShape ? number
    : F extends FlagShape ? boolean
      : F extends { kind: 'string-list' } ? string[]
        : F extends { kind: 'string-map' } ? Record<string, string>
          : F extends { kind: 'list-map' } ? Record<string, string[]>
            : string | null;
