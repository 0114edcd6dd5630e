import { describe, expect, it } from 'vitest';
import { SERVICE_MARKER, carriesServiceMarker } from './service-marker.js';

describe('service marker', () => {
  it('is a hidden HTML comment', () => {
    expect(SERVICE_MARKER).toBe('<!-- pipeline-service -->');
  });

  it('is found anywhere in a comment, tolerating whitespace and case changes', () => {
    expect(carriesServiceMarker(`Run failed.\n\n${SERVICE_MARKER}`)).toBe(true);
    expect(carriesServiceMarker('<!--pipeline-service-->')).toBe(true);
    expect(carriesServiceMarker('<!--  Pipeline-Service\n-->')).toBe(true);
  });

  it('is not matched by a mention or an escaped marker', () => {
    expect(carriesServiceMarker('@pipeline-service please run')).toBe(false);
    expect(carriesServiceMarker('&lt;!-- pipeline-service --&gt;')).toBe(false);
    expect(carriesServiceMarker('')).toBe(false);
  });
});
