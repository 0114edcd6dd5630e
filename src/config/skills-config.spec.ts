import { describe, expect, it } from 'vitest';
import type { Finding } from '../findings/finding.js';
import { readEnvironment } from './environment.js';
import { buildConfig } from './load-service-config.js';

function build(raw: Record<string, unknown>) {
  const findings: Finding[] = [];
  return { config: buildConfig(raw, readEnvironment({}), findings), findings };
}

describe('skills.paths', () => {
  it('defaults to none', () => {
    expect(build({}).config.skills).toEqual({ paths: [] });
  });

  it('keeps each folder once, as written, without blanks', () => {
    const { config, findings } = build({ skills: { paths: ['/srv/skills', ' team-skills ', '', '/srv/skills'] } });
    expect(findings).toEqual([]);
    expect(config.skills.paths).toEqual(['/srv/skills', 'team-skills']);
  });

  it('makes an unknown key or a path that is no list a configuration finding naming the key', () => {
    const { config, findings } = build({ skills: { paths: { a: 1 }, folders: ['x'] } });
    expect(config.skills.paths).toEqual([]);
    expect(findings.map((f) => f.field).sort()).toEqual(['skills.folders', 'skills.paths']);
  });
});
