/**
 * The JQL the Jira client sends, parsed for real (case-insensitive keywords, `"…"` or `'…'`
 * with backslash escapes, bare values, parentheses, NOT, AND binding tighter than OR):
 *
 *   [<expr>] [ORDER BY <field> [ASC|DESC], …]
 *   <clause> := <field> (= | != | >= | <= | > | <) <value> | <field> [NOT] IN (<value>, …)
 *
 * Fields: `project` (key), `key`/`issuekey`, `status`, `statusCategory` (name, key or id),
 * `labels` (any of the labels; case-insensitive, as Jira searches them since 7.10),
 * `updated`, `created`. Date literals (`yyyy/MM/dd HH:mm`, `yyyy-MM-dd HH:mm`, or a date alone)
 * are wall times in the searching user's time zone, to the minute, as in Jira.
 */

export class JqlError extends Error {}

export interface JqlRow {
  key: string;
  status: string;
  statusCategory: StatusCategory;
  labels: string[];
  /** Epoch ms. */
  updated: number;
  created: number;
}
export type StatusCategory = 'To Do' | 'In Progress' | 'Done';
export interface JqlQuery {
  where: (row: JqlRow) => boolean;
  orderBy: { field: 'key' | 'updated' | 'created'; desc: boolean }[];
}

const CATEGORY_ALIASES: Record<StatusCategory, string[]> = { 'To Do': ['to do', 'new', '2'], 'In Progress': ['in progress', 'indeterminate', '4'], Done: ['done', '3'] };
const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'order', 'by', 'asc', 'desc']);

type Token = { t: 'str' | 'word' | 'op' | 'punct'; v: string };
type Predicate = (row: JqlRow) => boolean;

export function parseJql(text: string, timeZone: string): JqlQuery {
  return new Parser(tokenize(text), timeZone).query();
}

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  const re = /\s+|"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|(!=|>=|<=|=|>|<)|([(),])|([^\s()",'=!<>]+)/y;
  for (let i = 0; i < text.length; ) {
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) throw new JqlError(`Error in the JQL Query: The character '${text[i]}' is a reserved JQL character. (line 1, character ${i + 1})`);
    i = re.lastIndex;
    const quoted = m[1] ?? m[2];
    if (quoted !== undefined) out.push({ t: 'str', v: quoted.replace(/\\(.)/g, '$1') });
    else if (m[3] !== undefined) out.push({ t: 'op', v: m[3] });
    else if (m[4] !== undefined) out.push({ t: 'punct', v: m[4] });
    else if (m[5] !== undefined) out.push({ t: 'word', v: m[5] });
  }
  return out;
}

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[], private readonly timeZone: string) {}

  query(): JqlQuery {
    const where = this.peekWord('order') || this.tokens.length === 0 ? () => true : this.or();
    const orderBy: JqlQuery['orderBy'] = [];
    if (this.acceptWord('order')) {
      if (!this.acceptWord('by')) throw this.error("Expecting 'by'");
      do {
        const field = this.next()?.v.toLowerCase();
        if (field !== 'key' && field !== 'updated' && field !== 'created') throw this.error(`Ordering by ${field} is not supported here`);
        const desc = this.acceptWord('desc');
        if (!desc) this.acceptWord('asc');
        orderBy.push({ field, desc });
      } while (this.accept('punct', ','));
    }
    if (this.i < this.tokens.length) throw this.error(`Expecting either 'OR' or 'AND' but got '${this.tokens[this.i]!.v}'`);
    return { where, orderBy };
  }

  private or(): Predicate {
    const parts = [this.and()];
    while (this.acceptWord('or')) parts.push(this.and());
    return (row) => parts.some((p) => p(row));
  }

  private and(): Predicate {
    const parts = [this.unary()];
    while (this.acceptWord('and')) parts.push(this.unary());
    return (row) => parts.every((p) => p(row));
  }

  private unary(): Predicate {
    if (this.acceptWord('not')) {
      const inner = this.unary();
      return (row) => !inner(row);
    }
    if (this.accept('punct', '(')) {
      const inner = this.or();
      if (!this.accept('punct', ')')) throw this.error("Expecting ')'");
      return inner;
    }
    return this.clause();
  }

  private clause(): Predicate {
    const token = this.next();
    if (token?.t !== 'word' && token?.t !== 'str') throw this.error('Expecting a field name');
    const field = token.v.toLowerCase();
    const negated = this.acceptWord('not');
    if (this.acceptWord('in')) {
      if (!this.accept('punct', '(')) throw this.error("Expecting '('");
      const values: string[] = [];
      do values.push(this.value()); while (this.accept('punct', ','));
      if (!this.accept('punct', ')')) throw this.error("Expecting ')'");
      const tests = values.map((v) => this.test(field, '=', v));
      return (row) => tests.some((t) => t(row)) !== negated;
    }
    if (negated) throw this.error("Expecting 'IN' after 'NOT'");
    const op = this.next();
    if (op?.t !== 'op') throw this.error(`Expecting operator but got '${op?.v ?? ''}'`);
    return this.test(field, op.v, this.value());
  }

  private test(field: string, op: string, value: string): Predicate {
    const eq = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
    const equality = (match: (row: JqlRow) => boolean): Predicate => {
      if (op === '=') return match;
      if (op === '!=') return (row) => !match(row);
      throw new JqlError(`The operator '${op}' is not supported by the '${field}' field.`);
    };
    switch (field) {
      case 'project': return equality((row) => eq(row.key.slice(0, row.key.lastIndexOf('-')), value));
      case 'key':
      case 'issuekey': return equality((row) => eq(row.key, value));
      case 'status': return equality((row) => eq(row.status, value));
      case 'statuscategory': return equality((row) => CATEGORY_ALIASES[row.statusCategory].includes(value.toLowerCase()));
      case 'labels': return op === '!=' ? (row) => row.labels.length > 0 && !row.labels.some((l) => eq(l, value)) : equality((row) => row.labels.some((l) => eq(l, value)));
      case 'updated':
      case 'created': {
        const at = jqlDate(value, this.timeZone, field);
        const which: 'updated' | 'created' = field;
        const compare = (row: JqlRow): number => row[which] - at;
        const ops: Record<string, (d: number) => boolean> = { '=': (d) => d === 0, '!=': (d) => d !== 0, '>=': (d) => d >= 0, '<=': (d) => d <= 0, '>': (d) => d > 0, '<': (d) => d < 0 };
        return (row) => ops[op]!(compare(row));
      }
      default: throw new JqlError(`Field '${field}' does not exist or you do not have permission to view it.`);
    }
  }

  private value(): string {
    const token = this.next();
    if (token?.t === 'str' || (token?.t === 'word' && !KEYWORDS.has(token.v.toLowerCase()))) return token.v;
    throw this.error(`Expecting a value but got '${token?.v ?? ''}'`);
  }

  private peekWord(word: string): boolean {
    const token = this.tokens[this.i];
    return token?.t === 'word' && token.v.toLowerCase() === word;
  }

  private acceptWord(word: string): boolean {
    if (!this.peekWord(word)) return false;
    this.i++;
    return true;
  }

  private accept(t: Token['t'], v: string): boolean {
    const token = this.tokens[this.i];
    if (token?.t !== t || token.v !== v) return false;
    this.i++;
    return true;
  }

  private next(): Token | undefined {
    return this.tokens[this.i++];
  }

  private error(what: string): JqlError {
    return new JqlError(`Error in the JQL Query: ${what}. (line 1, token ${this.i})`);
  }
}

/** A JQL date literal as an instant: wall time in `timeZone`, to the minute. */
function jqlDate(value: string, timeZone: string, field: string): number {
  const m = /^(\d{4})[/-](\d{1,2})[/-](\d{1,2})(?: (\d{1,2}):(\d{2}))?$/.exec(value.trim());
  if (!m) {
    throw new JqlError(`Date value '${value}' for field '${field}' is invalid. Valid formats include: 'yyyy/MM/dd HH:mm', 'yyyy-MM-dd HH:mm', 'yyyy/MM/dd', 'yyyy-MM-dd', or a period format e.g. '-5d', '4w 2d'.`);
  }
  const [y, mo, d, h, mi] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number, number];
  return wallTimeToInstant(Date.UTC(y, mo - 1, d, h, mi), timeZone);
}

/** `wall` (a UTC-coded wall time) read in `timeZone`. */
export function wallTimeToInstant(wall: number, timeZone: string): number {
  const first = wall - offsetAt(wall, timeZone);
  const second = wall - offsetAt(first, timeZone);
  return second;
}

/** The zone's UTC offset at `instant`, in ms (wall time minus UTC). */
export function offsetAt(instant: number, timeZone: string): number {
  const format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  const p = Object.fromEntries(format.formatToParts(instant).map((x) => [x.type, Number(x.value)]));
  return Date.UTC(p['year']!, p['month']! - 1, p['day']!, p['hour']!, p['minute']!, p['second']!) - Math.floor(instant / 1000) * 1000;
}

/** Jira's timestamp shape, `2026-11-24T11:33:58.123+0530`, in `timeZone`. */
export function jiraDateTime(instant: number, timeZone: string): string {
  const offset = offsetAt(instant, timeZone);
  const local = new Date(instant + offset).toISOString().slice(0, -1);
  const minutes = Math.round(Math.abs(offset) / 60_000);
  return `${local}${offset < 0 ? '-' : '+'}${String(Math.floor(minutes / 60)).padStart(2, '0')}${String(minutes % 60).padStart(2, '0')}`;
}
