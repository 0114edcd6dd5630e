import { describe, expect, it } from 'vitest';
import { BUILT_IN_PIPELINES, BUILT_IN_TRAITS, DEFAULT_PIPELINE, PULL_REQUEST_LABEL_PIPELINE, REWORK_PIPELINE, builtInHas, builtInTraitsOf, builtInsWith } from './built-in-pipelines.js';

describe('the built-in pipelines catalog', () => {
  it('gives every built-in its traits, and none to a command pipeline or an inherited property', () => {
    expect(Object.keys(BUILT_IN_TRAITS).sort()).toEqual([...BUILT_IN_PIPELINES].sort());
    expect(builtInTraitsOf('lint')).toBeUndefined();
    expect(builtInTraitsOf('constructor')).toBeUndefined();
    expect(builtInHas('lint', 'drivesModel')).toBe(false);
  });

  it('names each command pipeline first by its own name, and no word twice', () => {
    const words = BUILT_IN_PIPELINES.flatMap((name) => builtInTraitsOf(name)!.commandWords);
    expect(new Set(words).size).toBe(words.length);
    for (const name of BUILT_IN_PIPELINES) {
      const own = builtInTraitsOf(name)!.commandWords;
      if (own.length > 0) expect(own[0]).toBe(name);
    }
  });

  it('keeps its constants among the built-ins, the rework one writing code', () => {
    expect(BUILT_IN_PIPELINES).toContain(DEFAULT_PIPELINE);
    expect(BUILT_IN_PIPELINES).toContain(PULL_REQUEST_LABEL_PIPELINE);
    expect(builtInsWith('writesCode')).toEqual([REWORK_PIPELINE]);
    expect(builtInsWith('drivesModel')).toEqual(BUILT_IN_PIPELINES);
  });
});
