import { describe, expect, it } from 'vitest';
import { ANY_JSON_VALUE } from '../../src/common/dto/any-json-value.js';
import { type OpenApiDocument, type Schema, schemaViolations } from './schema-conformance.js';

/** The checker on schemas shaped as @nestjs/swagger writes them, "any JSON value" among them. */
const document: OpenApiDocument = {
  components: {
    schemas: {
      Setting: {
        type: 'object',
        properties: { key: { type: 'string' }, value: ANY_JSON_VALUE as Schema, note: { type: 'string', nullable: true } },
        required: ['key', 'value'],
      },
    },
  },
};
const setting: Schema = { $ref: '#/components/schemas/Setting' };

describe('schemaViolations: any JSON value', () => {
  it('the empty schema takes every value, null included', () => {
    for (const value of [null, 'x', 0, 1.5, false, {}, { a: null }, [], [null, 1]]) expect(schemaViolations(document, {}, value), JSON.stringify(value)).toEqual([]);
  });

  it('a property documented with ANY_JSON_VALUE takes every JSON kind, null and nested nulls included', () => {
    for (const value of [null, 'x', 8, 0.5, true, { a: [null] }, [], [1, null, 'x', { b: null }], [[null]]]) {
      expect(schemaViolations(document, setting, { key: 'k', value }), JSON.stringify(value)).toEqual([]);
    }
  });

  it('still catches what the schema does not allow around it', () => {
    expect(schemaViolations(document, setting, { key: 'k' })).toEqual(['$.value is required but missing']);
    expect(schemaViolations(document, setting, { key: 'k', value: 1, extra: true })).toEqual(['$.extra is not in the schema']);
    expect(schemaViolations(document, setting, { key: null, value: 1 })).toEqual(['$.key is null, which the schema does not allow']);
    expect(schemaViolations(document, setting, { key: 'k', value: 1, note: 2 })).toEqual(['$.note = 2 is not of type string']);
    expect(schemaViolations(document, setting, null)).toEqual(['$ is null, which the schema does not allow']);
  });

  it('null stays refused wherever a schema constrains the value and is not nullable', () => {
    const { nullable: _, ...notNullable } = ANY_JSON_VALUE;
    expect(schemaViolations(document, notNullable as Schema, null)).toEqual(['$ is null, which the schema does not allow']);
    expect(schemaViolations(document, { type: 'array', items: {} }, null)).toEqual(['$ is null, which the schema does not allow']);
    expect(schemaViolations(document, { type: 'array', items: { type: 'integer' } }, [1, null])).toEqual(['$[1] is null, which the schema does not allow']);
    expect(schemaViolations(document, { enum: ['a'] }, null)).toEqual(['$ is null, which the schema does not allow']);
    expect(schemaViolations(document, { type: 'object', additionalProperties: { type: 'integer' } }, { t: null })).toEqual(['$.t is null, which the schema does not allow']);
  });
});
