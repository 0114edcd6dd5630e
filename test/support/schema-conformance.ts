/**
 * What in `value` an OpenAPI 3.0 schema of `document` does not allow: missing required fields,
 * fields the schema does not name, wrong types, values outside an enum. Enough of JSON Schema for
 * the schemas @nestjs/swagger writes ($ref, allOf, oneOf, nullable, enum, format, and `{}` for any
 * value), so a test can hold a real answer against its documented schema in both directions.
 */
export function schemaViolations(document: OpenApiDocument, schema: Schema, value: unknown, at = '$'): string[] {
  if (schema.$ref !== undefined) return schemaViolations(document, resolve(document, schema.$ref), value, at);
  if (value === null) return schema.nullable === true || isAnyValue(schema) ? [] : [`${at} is null, which the schema does not allow`];
  const out: string[] = [];
  for (const part of schema.allOf ?? []) out.push(...schemaViolations(document, part, value, at));
  if (schema.oneOf !== undefined) {
    const matches = schema.oneOf.filter((option) => schemaViolations(document, option, value, at).length === 0).length;
    if (matches !== 1) out.push(`${at} matches ${matches} of the oneOf options, not exactly one`);
  }
  if (schema.enum !== undefined && !schema.enum.includes(value)) out.push(`${at} = ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  const type = schema.type;
  if (type !== undefined && !hasType(value, type)) return [...out, `${at} = ${JSON.stringify(value)} is not of type ${type}`];
  if (typeof value === 'string' && schema.format === 'date-time' && !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value)) {
    out.push(`${at} = ${value} is not an ISO 8601 UTC date-time`);
  }
  if (typeof value === 'string' && schema.format === 'uuid' && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) {
    out.push(`${at} = ${value} is not a UUID`);
  }
  if (Array.isArray(value) && schema.items !== undefined) {
    value.forEach((item, i) => out.push(...schemaViolations(document, schema.items!, item, `${at}[${i}]`)));
  }
  if (isObject(value) && (schema.properties !== undefined || schema.additionalProperties !== undefined)) {
    const properties = schema.properties ?? {};
    for (const name of schema.required ?? []) if (!(name in value)) out.push(`${at}.${name} is required but missing`);
    for (const [name, field] of Object.entries(value)) {
      const fieldSchema = properties[name] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      if (fieldSchema !== undefined) out.push(...schemaViolations(document, fieldSchema, field, `${at}.${name}`));
      else if (schema.additionalProperties !== true) out.push(`${at}.${name} is not in the schema`);
    }
  }
  return out;
}

export interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  nullable?: boolean;
  enum?: unknown[];
  allOf?: Schema[];
  oneOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema | boolean;
}

export interface OpenApiDocument {
  components?: { schemas?: Record<string, Schema> };
}

function resolve(document: OpenApiDocument, ref: string): Schema {
  const name = ref.replace('#/components/schemas/', '');
  const schema = document.components?.schemas?.[name];
  if (schema === undefined) throw new Error(`the document has no schema ${ref}`);
  return schema;
}

/**
 * The empty schema (`{}`, e.g. the items of an array of any values): it constrains nothing, so
 * null too is allowed (OpenAPI 3.0.3: `nullable` only matters beside a `type`).
 */
function isAnyValue(schema: Schema): boolean {
  return schema.type === undefined && schema.enum === undefined && schema.allOf === undefined && schema.oneOf === undefined
    && schema.items === undefined && schema.properties === undefined && schema.additionalProperties === undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string': return typeof value === 'string';
    case 'integer': return Number.isInteger(value);
    case 'number': return typeof value === 'number' && Number.isFinite(value);
    case 'boolean': return typeof value === 'boolean';
    case 'array': return Array.isArray(value);
    case 'object': return isObject(value);
    default: return false;
  }
}
