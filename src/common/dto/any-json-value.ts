import type { SchemaObject } from '@nestjs/swagger';

/**
 * `@ApiProperty` options for a property holding any JSON value, null included (a setting's value,
 * a change's before/after). @nestjs/swagger has no "any" type and reads an `unknown` property as
 * `object`; a `oneOf` makes it drop the type, so the JSON kinds are listed and `nullable` admits
 * null. Array items are the empty schema: any value, null included.
 */
export const ANY_JSON_VALUE: { oneOf: SchemaObject[]; nullable: true } = {
  oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'object' }, { type: 'array', items: {} }],
  nullable: true,
};
