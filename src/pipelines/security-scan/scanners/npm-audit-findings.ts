import { FindingSeverity } from '../../../agent/agent-types.js';
import { clipText } from '../../../common/clip-text.js';
import { type ScanFinding, ScanTool } from '../scan-finding.js';

/** npm's severities (`moderate`) in ours (`medium`); anything unknown is `info`. */
const SEVERITY: Readonly<Record<string, FindingSeverity>> = {
  critical: FindingSeverity.Critical,
  high: FindingSeverity.High,
  moderate: FindingSeverity.Medium,
  low: FindingSeverity.Low,
  info: FindingSeverity.Info,
};
const RANK = Object.values(FindingSeverity);

export const NPM_LOCKFILE = 'package-lock.json';

/** What `npm audit --json` said: one finding per vulnerable package, or why there are none to give. */
export type NpmAuditOutcome = { ok: true; findings: ScanFinding[] } | { ok: false; reason: string };

interface Advisory {
  source?: unknown;
  title?: unknown;
  url?: unknown;
  severity?: unknown;
  range?: unknown;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads the npm 7+ report (`auditReportVersion` 2, `vulnerabilities` keyed by package name).
 * `lockLines` maps a lockfile entry (`node_modules/minimist`) to its line in package-lock.json.
 * Never throws: output it cannot read is a reason.
 */
export function npmAuditFindings(output: string, lockLines: ReadonlyMap<string, number>, repo: string | null): NpmAuditOutcome {
  let report: unknown;
  try {
    report = JSON.parse(output);
  } catch {
    return { ok: false, reason: output.trim() === '' ? 'npm audit printed nothing' : 'npm audit printed something other than its JSON report' };
  }
  if (!isObject(report)) return { ok: false, reason: 'npm audit printed something other than its JSON report' };
  if (!isObject(report['vulnerabilities'])) {
    if (isObject(report['advisories'])) return { ok: false, reason: 'npm audit answered in the npm 6 format, which is not read: the image needs npm 7 or later' };
    return { ok: false, reason: failureReason(report) };
  }
  const findings: ScanFinding[] = [];
  for (const [key, entry] of Object.entries(report['vulnerabilities'])) {
    if (isObject(entry)) findings.push(findingOf(text(entry['name']) || key, entry, lockLines, repo));
  }
  findings.sort((a, b) => RANK.indexOf(a.severity) - RANK.indexOf(b.severity) || a.title.localeCompare(b.title));
  return { ok: true, findings };
}

function findingOf(name: string, entry: Record<string, unknown>, lockLines: ReadonlyMap<string, number>, repo: string | null): ScanFinding {
  const via = Array.isArray(entry['via']) ? entry['via'] : [];
  const advisories = via.filter(isObject) as Advisory[];
  advisories.sort((a, b) => rankOf(a.severity) - rankOf(b.severity));
  const through = via.filter((v): v is string => typeof v === 'string');
  const nodes = (Array.isArray(entry['nodes']) ? entry['nodes'] : []).filter((n): n is string => typeof n === 'string');
  const main = advisories[0];
  const range = text(entry['range']) || text(main?.range) || 'some versions';
  const ghsa = /GHSA(?:-[23456789cfghjmpqrvwx]{4}){3}/i.exec(text(main?.url))?.[0];
  const ruleId = `npm-audit/${ghsa ?? (text(main?.source) || name)}`;
  const what = main
    ? `${text(main.title) || 'an advisory'}${advisories.length > 1 ? ` (and ${advisories.length - 1} more advisor${advisories.length === 2 ? 'y' : 'ies'})` : ''}`
    : `vulnerable through ${through.join(', ') || 'its dependencies'}`;
  const listed = advisories.map((a) => `${text(a.title) || 'advisory'} (${text(a.severity) || 'unknown severity'}${text(a.url) ? `, ${text(a.url)}` : ''})`);
  const detail = [
    `${name} ${range} (${entry['isDirect'] === true ? 'a direct' : 'an indirect'} dependency) is affected by ${listed.length > 0 ? listed.join('; ') : `vulnerabilities in ${through.join(', ') || 'its dependencies'}`}.`,
    nodes.length > 0 ? `Installed at ${nodes.slice(0, 5).join(', ')}${nodes.length > 5 ? ', …' : ''}.` : '',
  ].join(' ').trim();
  return {
    tool: ScanTool.Dependencies,
    ruleId: clipText(ruleId, 200),
    severity: SEVERITY[text(entry['severity'])] ?? FindingSeverity.Info,
    title: clipText(`${name} ${range}: ${what}`, 300),
    detail: clipText(detail, 2000),
    suggestion: suggestionOf(entry['fixAvailable']),
    repo,
    path: NPM_LOCKFILE,
    line: lockLines.get(nodes[0] ?? `node_modules/${name}`) ?? 1,
    endLine: null,
    commit: null,
    challenge: null,
  };
}

const rankOf = (severity: unknown) => {
  const at = RANK.indexOf(SEVERITY[text(severity)] ?? FindingSeverity.Info);
  return at < 0 ? RANK.length : at;
};

function suggestionOf(fix: unknown): string {
  if (fix === true) return 'Run `npm audit fix`: a compatible fixed version exists.';
  if (isObject(fix) && text(fix['name'])) {
    const major = fix['isSemVerMajor'] === true ? ' (a semver-major change: check its breaking changes first)' : '';
    return clipText(`Upgrade ${text(fix['name'])} to ${text(fix['version']) || 'a fixed version'}${major}.`, 300);
  }
  return 'No fixed version is available yet: replace the package or mitigate the advisory where it is used.';
}

/** npm's JSON error (`{error: {code, summary, detail}}`, or `{message, error}` when the audit request failed) as one line. */
function failureReason(report: Record<string, unknown>): string {
  const error = isObject(report['error']) ? report['error'] : {};
  const said = [text(report['message']), text(error['code']), text(error['summary'])].filter(Boolean).join(' ');
  const network = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ECONNRESET)\b|socket hang up|request to \S+ failed/.exec(said);
  if (network) {
    const cause = network[1] ?? /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ECONNRESET)\b/.exec(said)?.[1] ?? 'network error';
    return clipText(`npm audit could not reach the registry (${cause}): the sandbox has no network, or the registry is down`, 300);
  }
  return clipText(`npm audit failed: ${withoutCredentials(said) || 'no reason given'}`, 300);
}

/** A registry URL may carry `user:password@`: never repeat it. */
const withoutCredentials = (line: string) => line.replace(/\/\/[^/\s@]+@/g, '//').replace(/\s+/g, ' ').trim();
