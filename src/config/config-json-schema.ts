import { BOOLEAN_TEXT, DECIMAL_TEXT, INTEGER_TEXT } from './config-reader.js';
import { type BlockShape, type FieldShape, SERVICE_FILE } from './config-shape.js';
import { keyDescriptions } from './key-descriptions.js';

import { CONFIG_SCHEMA_FILE } from './config-schema-file.js';

export { CONFIG_SCHEMA_FILE };
/** The documentation the descriptions are read from. */
export const CONFIG_EXAMPLE_FILE = 'config/service.example.yml';

export type JsonSchema = Record<string, unknown>;

/**
 * JSON Schema (draft-07, what editors' YAML extensions read) of the bootstrap file, generated from
 * the tables the loader reads with (config-shape.ts) and the example file's comments. It accepts
 * what the loader accepts without a finding about a key's shape: any key may be left out or
 * written empty (`key:`), a string key takes a number or boolean as its text, an integer or
 * boolean may be quoted. Throws when a key has no documentation in the example.
 */
export function configJsonSchema(exampleText: string, shape: BlockShape = SERVICE_FILE): JsonSchema {
  const docs = keyDescriptions(exampleText, shape);
  const undocumented: string[] = [];
  const body = node(shape, '', docs, undocumented);
  if (undocumented.length > 0) throw new Error(`${CONFIG_EXAMPLE_FILE} documents no ${undocumented.join(', ')}`);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'pipeline-service bootstrap file (service.yml)',
    description: `Generated from src/config/config-shape.ts and the comments of ${CONFIG_EXAMPLE_FILE} by \`npm run schema\`; do not edit.`,
    ...body,
  };
}

/** The file's JSON text: what `npm run schema` writes and a test compares with the committed file. */
export function configJsonSchemaText(exampleText: string): string {
  return `${JSON.stringify(configJsonSchema(exampleText), null, 2)}\n`;
}

/** A string key also takes a number or a boolean (read as its text). */
const TEXT = ['string', 'number', 'boolean'];
const orNull = (types: string[], required = false) => (required ? types : [...types, 'null']);

function node(shape: FieldShape, docPath: string, docs: Map<string, string>, undocumented: string[]): JsonSchema {
  const withDefault = (schema: JsonSchema, value: unknown) => (value === undefined ? schema : { ...schema, default: value });
  switch (shape.kind) {
    case 'string': return withDefault({ type: orNull(TEXT, shape.required), ...(shape.pattern ? { pattern: shape.pattern } : {}) }, shape.default);
    case 'enum': return withDefault({ enum: shape.required ? [...shape.values] : [...shape.values, null] }, shape.default);
    case 'boolean': return { type: orNull(['boolean', 'string']), pattern: BOOLEAN_TEXT.source, default: shape.default };
    case 'integer': return { type: orNull(['integer', 'string']), minimum: shape.min, pattern: INTEGER_TEXT.source, default: shape.default };
    case 'decimal': return withDefault({ type: orNull(['number', 'string']), minimum: shape.min, pattern: DECIMAL_TEXT.source }, shape.default);
    // `cpu:` alone is not "unset" for a quantity: the loader reports it.
    case 'quantity': return withDefault({ type: ['number', 'string'], exclusiveMinimum: 0, pattern: shape.pattern }, shape.default);
    case 'string-list': return { type: ['array', 'string', 'null'], items: { type: orNull(TEXT) } };
    case 'string-map': return { type: ['object', 'null'], additionalProperties: { type: orNull(TEXT) } };
    case 'list-map': return { type: ['object', 'null'], additionalProperties: node({ kind: 'string-list' }, docPath, docs, undocumented) };
    case 'list': return { type: ['array', 'null'], items: node(shape.of, `${docPath}[]`, docs, undocumented) };
    case 'map': return {
      type: ['object', 'null'],
      ...(shape.reserved ? { propertyNames: { not: { enum: [...shape.reserved] } } } : {}),
      additionalProperties: node(shape.of, `${docPath}.*`, docs, undocumented),
    };
    case 'block': {
      const at = shape.docs ?? docPath;
      const properties: Record<string, JsonSchema> = {};
      for (const [key, child] of Object.entries(shape.keys)) {
        const path = at === '' ? key : `${at}.${key}`;
        const description = docs.get(path);
        if (description === undefined) undocumented.push(path);
        properties[key] = { ...(description ? { description } : {}), ...node(child, path, docs, undocumented) };
      }
      return {
        type: shape.nullable === false ? 'object' : ['object', 'null'],
        ...(shape.required ? { required: [...shape.required] } : {}),
        properties,
        additionalProperties: false,
      };
    }
  }
}
