import type { JSONSchema7 } from 'ai';
import type { ToolInput, ToolParameters } from './tool-types.js';

/** Line numbers and timeouts never need more. */
const MAX_INTEGER = 1_000_000_000;

/** The JSON Schema the model is shown for a tool's parameters. */
export function toJsonSchema(parameters: ToolParameters): JSONSchema7 {
  const properties: Record<string, JSONSchema7> = {};
  for (const [name, p] of Object.entries(parameters.properties)) {
    properties[name] = {
      ...(p.type === 'string-list' ? { type: 'array', items: { type: 'string' } } : { type: p.type }),
      description: p.description,
      ...(p.enum ? { enum: [...p.enum] } : {}),
      ...(p.minimum !== undefined ? { minimum: p.minimum } : {}),
    };
  }
  return { type: 'object', properties, required: [...parameters.required], additionalProperties: false };
}

/**
 * The model's input checked against the parameters: an object, every required key present,
 * strings as strings, integers as integers (a string of digits is accepted: some models quote
 * numbers), enums and minimums held. Unknown keys are ignored. Returns the input or what is wrong.
 */
export function validateInput(parameters: ToolParameters, raw: unknown): { input: ToolInput } | { error: string } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { error: 'the input must be a JSON object' };
  const given = raw as Record<string, unknown>;
  const input: ToolInput = {};
  const problems: string[] = [];
  for (const [name, p] of Object.entries(parameters.properties)) {
    const value = given[name];
    if (value === undefined || value === null) {
      if (parameters.required.includes(name)) problems.push(`${name} is required`);
      continue;
    }
    if (p.type === 'string-list') {
      if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) problems.push(`${name} must be a list of strings`);
      else input[name] = [...(value as string[])];
      continue;
    }
    if (p.type === 'string') {
      if (typeof value !== 'string') problems.push(`${name} must be a string`);
      else if (p.enum && !p.enum.includes(value)) problems.push(`${name} must be one of ${p.enum.join(', ')}`);
      else input[name] = value;
      continue;
    }
    const number = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
    // Safe and bounded: a huge integer would print as `1e+21`, which a command line must never carry.
    if (typeof number !== 'number' || !Number.isSafeInteger(number) || Math.abs(number) > MAX_INTEGER) problems.push(`${name} must be an integer of at most ${MAX_INTEGER}`);
    else if (p.minimum !== undefined && number < p.minimum) problems.push(`${name} must be at least ${p.minimum}`);
    else input[name] = number;
  }
  return problems.length > 0 ? { error: `invalid input: ${problems.join('; ')}` } : { input };
}
