import { describe, expect, it } from 'vitest';
import { added, asRecord, at, firstHeader, header, idString, positiveInt, text } from './payload-reader.js';

describe('payload reader', () => {
  it('asRecord accepts plain objects only', () => {
    expect(asRecord({ a: 1 })).toEqual({ a: 1 });
    expect(asRecord([])).toBeNull();
    expect(asRecord(null)).toBeNull();
    expect(asRecord('x')).toBeNull();
  });

  it('at walks own properties only and stops at non-objects', () => {
    expect(at({ a: { b: { c: 3 } } }, 'a', 'b', 'c')).toBe(3);
    expect(at({ a: [{ b: 1 }] }, 'a', 'b')).toBeNull();
    expect(at({}, 'constructor')).toBeNull();
    expect(at({}, '__proto__')).toBeNull();
    expect(at(null, 'a')).toBeNull();
  });

  it('positiveInt accepts positive integers and digit strings', () => {
    expect(positiveInt(42)).toBe(42);
    expect(positiveInt(' 7 ')).toBe(7);
    expect(positiveInt(0)).toBeNull();
    expect(positiveInt(-1)).toBeNull();
    expect(positiveInt(1.5)).toBeNull();
    expect(positiveInt('1e3')).toBeNull();
    expect(positiveInt(Number.MAX_SAFE_INTEGER + 2)).toBeNull();
  });

  it('text and idString reject blanks and wrong types', () => {
    expect(text('  ')).toBeNull();
    expect(text(5)).toBeNull();
    expect(idString(12)).toBe('12');
    expect(idString('')).toBeNull();
    expect(idString({})).toBeNull();
  });

  it('added keeps order and drops duplicates', () => {
    expect(added(['a', 'b', 'c', 'b'], ['a'])).toEqual(['b', 'c']);
  });

  it('header reads lower-cased names, first of repeated values, trimmed', () => {
    expect(header({ 'x-a': ' v ' }, 'X-A')).toBe('v');
    expect(header({ 'x-a': ['1', '2'] }, 'x-a')).toBe('1');
    expect(header({ 'x-a': '' }, 'x-a')).toBeNull();
    expect(firstHeader({ 'x-b': 'b' }, 'x-a', 'x-b')).toBe('b');
  });
});
