/**
 * The security scan's SARIF (2.1.0) as rows of a findings table. Reads defensively: the file is
 * an artifact, so any field may be missing or of another type, and nothing in it is trusted.
 */
export type SarifLevel = 'error' | 'warning' | 'note' | 'none';

export interface SarifFinding {
  rule: string;
  level: SarifLevel;
  file: string;
  line: number | null;
  message: string;
}

export interface SarifTable {
  tools: string[];
  findings: SarifFinding[];
}

const LEVELS: readonly SarifLevel[] = ['error', 'warning', 'note', 'none'];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const array = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

function levelOf(v: unknown): SarifLevel | null {
  return typeof v === 'string' && (LEVELS as readonly string[]).includes(v) ? (v as SarifLevel) : null;
}

/** Throws when the text is not JSON or not a SARIF log; otherwise every result becomes a row. */
export function parseSarif(raw: string): SarifTable {
  const doc: unknown = JSON.parse(raw);
  if (!isObject(doc) || !Array.isArray(doc['runs'])) throw new Error('not a SARIF log (no "runs")');
  const tools: string[] = [];
  const findings: SarifFinding[] = [];
  for (const run of array(doc['runs'])) {
    if (!isObject(run)) continue;
    const driver = isObject(run['tool']) && isObject(run['tool']['driver']) ? run['tool']['driver'] : {};
    if (text(driver['name'])) tools.push(text(driver['name']));
    const rules = array(driver['rules']).filter(isObject);
    for (const result of array(run['results'])) {
      if (!isObject(result)) continue;
      const ruleIndex = typeof result['ruleIndex'] === 'number' ? result['ruleIndex'] : -1;
      const rule = rules[ruleIndex] ?? rules.find((r) => r['id'] === result['ruleId']);
      const ruleLevel = rule && isObject(rule['defaultConfiguration']) ? levelOf(rule['defaultConfiguration']['level']) : null;
      const location = array(result['locations']).find(isObject);
      const physical = location && isObject(location['physicalLocation']) ? location['physicalLocation'] : {};
      const artifact = isObject(physical['artifactLocation']) ? physical['artifactLocation'] : {};
      const region = isObject(physical['region']) ? physical['region'] : {};
      const startLine = region['startLine'];
      const message = isObject(result['message']) ? text(result['message']['text']) : '';
      findings.push({
        rule: text(result['ruleId']) || (rule ? text(rule['id']) : '') || '(no rule)',
        // SARIF: a result without a level takes its rule's default, and "warning" without either.
        level: levelOf(result['level']) ?? ruleLevel ?? 'warning',
        file: text(artifact['uri']),
        line: typeof startLine === 'number' && Number.isInteger(startLine) ? startLine : null,
        message,
      });
    }
  }
  return { tools, findings };
}

export type SarifColumn = 'rule' | 'level' | 'location' | 'message';
export interface SarifSort { column: SarifColumn; descending: boolean }

/** Levels sort by weight (error first when ascending), locations by file then line as numbers. */
export function sortFindings(findings: readonly SarifFinding[], sort: SarifSort): SarifFinding[] {
  const compare = (a: SarifFinding, b: SarifFinding): number => {
    switch (sort.column) {
      case 'level': return LEVELS.indexOf(a.level) - LEVELS.indexOf(b.level);
      case 'rule': return a.rule.localeCompare(b.rule);
      case 'message': return a.message.localeCompare(b.message);
      case 'location': return a.file.localeCompare(b.file) || (a.line ?? 0) - (b.line ?? 0);
    }
  };
  const sign = sort.descending ? -1 : 1;
  // Ties keep the file's order (Array.prototype.sort is stable).
  return findings.slice().sort((a, b) => sign * compare(a, b));
}

export function locationOf(f: SarifFinding): string {
  return f.line === null ? f.file : `${f.file}:${f.line}`;
}
