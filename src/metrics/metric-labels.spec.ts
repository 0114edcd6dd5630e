import { describe, expect, it } from 'vitest';
import { OTHER_PIPELINE, UNKNOWN_PLATFORM, pipelineLabel, platformLabel } from './metric-labels.js';

describe('platformLabel', () => {
  it('keeps the four platforms and folds anything else into unknown', () => {
    expect(platformLabel('platform-a')).toBe('platform-a');
    expect(platformLabel('platform-d')).toBe('platform-d');
    expect(platformLabel(null)).toBe(UNKNOWN_PLATFORM);
    expect(platformLabel('platform-e')).toBe(UNKNOWN_PLATFORM);
    expect(platformLabel('PLATFORM-A')).toBe(UNKNOWN_PLATFORM);
  });
});

describe('pipelineLabel', () => {
  const configured = { lint: { commands: ['true'] } };

  it('keeps built-in and configured pipeline names', () => {
    expect(pipelineLabel('code', configured)).toBe('code');
    expect(pipelineLabel('pr-review', configured)).toBe('pr-review');
    expect(pipelineLabel('lint', configured)).toBe('lint');
  });

  it('folds a name no configuration knows into other, inherited keys included', () => {
    expect(pipelineLabel('removed-since', configured)).toBe(OTHER_PIPELINE);
    expect(pipelineLabel('toString', configured)).toBe(OTHER_PIPELINE);
    expect(pipelineLabel('__proto__', configured)).toBe(OTHER_PIPELINE);
  });
});
