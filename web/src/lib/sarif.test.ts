import { describe, expect, it } from 'vitest';
import { parseSarif, sortFindings } from './sarif';

const SARIF = JSON.stringify({
  version: '2.1.0',
  runs: [{
    tool: { driver: { name: 'security-scan', rules: [{ id: 'r-high', defaultConfiguration: { level: 'error' } }, { id: 'r-low', defaultConfiguration: { level: 'note' } }] } },
    results: [
      { ruleId: 'r-low', ruleIndex: 1, message: { text: 'low one' }, locations: [{ physicalLocation: { artifactLocation: { uri: 'src/b.ts' }, region: { startLine: 10 } } }] },
      { ruleId: 'r-high', message: { text: 'high one' }, locations: [{ physicalLocation: { artifactLocation: { uri: 'src/a.ts' }, region: { startLine: 9 } } }] },
      { ruleId: 'x', level: 'warning', message: { text: 'explicit level' }, locations: [{ physicalLocation: { artifactLocation: { uri: 'src/a.ts' }, region: { startLine: 100 } } }] },
      { message: { text: 42 }, locations: 'nonsense' },
    ],
  }],
});

describe('parsing SARIF', () => {
  it('reads rule, level (the result\'s, else its rule\'s default, else warning), file:line and message', () => {
    const table = parseSarif(SARIF);
    expect(table.tools).toEqual(['security-scan']);
    expect(table.findings).toEqual([
      { rule: 'r-low', level: 'note', file: 'src/b.ts', line: 10, message: 'low one' },
      { rule: 'r-high', level: 'error', file: 'src/a.ts', line: 9, message: 'high one' },
      { rule: 'x', level: 'warning', file: 'src/a.ts', line: 100, message: 'explicit level' },
      { rule: '(no rule)', level: 'warning', file: '', line: null, message: '' },
    ]);
  });

  it('refuses what is not a SARIF log', () => {
    expect(() => parseSarif('{')).toThrow();
    expect(() => parseSarif('{"version":"2.1.0"}')).toThrow(/not a SARIF log/);
    expect(parseSarif('{"runs":[]}').findings).toEqual([]);
  });
});

describe('sorting findings', () => {
  const findings = parseSarif(SARIF).findings.slice(0, 3);
  it('by level by weight, both ways', () => {
    expect(sortFindings(findings, { column: 'level', descending: false }).map((f) => f.level)).toEqual(['error', 'warning', 'note']);
    expect(sortFindings(findings, { column: 'level', descending: true }).map((f) => f.level)).toEqual(['note', 'warning', 'error']);
  });
  it('by location: file, then line as a number (9 before 100)', () => {
    expect(sortFindings(findings, { column: 'location', descending: false }).map((f) => `${f.file}:${f.line}`)).toEqual(['src/a.ts:9', 'src/a.ts:100', 'src/b.ts:10']);
  });
  it('by rule, and leaves its input alone', () => {
    expect(sortFindings(findings, { column: 'rule', descending: false }).map((f) => f.rule)).toEqual(['r-high', 'r-low', 'x']);
    expect(findings[0]!.rule).toBe('r-low');
  });
});
