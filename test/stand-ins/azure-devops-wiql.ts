/**
 * The WIQL the clients send, parsed for real (case-insensitive keywords, `[Field]` names,
 * `'…'` literals with `''` for a quote, parentheses, AND binding tighter than OR):
 *
 *   SELECT [f], … FROM WorkItems [WHERE <expr>] [ORDER BY [f] [ASC|DESC], …]
 *   <clause> := [f] (= | <> | >= | <= | > | <) <value> | [f] [NOT] IN (<value>, …) | [f] [NOT] CONTAINS <value>
 *
 * Values are literals, numbers or `@project`. Strings compare case-insensitively; `CONTAINS`
 * on `System.Tags` matches a whole tag, elsewhere a substring. Date fields compare as instants
 * when the request says `timePrecision=true`; otherwise by day, and a literal with a time is
 * refused, as the service does. A field outside `FIELDS` is an unknown field (TF51005).
 */

export class WiqlError extends Error {}

export interface WiqlContext {
  project: string;
  timePrecision: boolean;
}
export interface WiqlRow {
  id: number;
  fields: Record<string, string>;
}
export interface WiqlQuery {
  where: (row: WiqlRow) => boolean;
  orderBy: { field: string; desc: boolean }[];
}

const FIELDS = ['System.Id', 'System.State', 'System.Tags', 'System.TeamProject', 'System.Title', 'System.ChangedDate', 'System.CreatedDate'];
const DATE_FIELDS = new Set(['system.changeddate', 'system.createddate']);

type Token = { t: 'field' | 'str' | 'num' | 'macro' | 'word' | 'op' | 'punct'; v: string };

export function parseWiql(text: string, ctx: WiqlContext): WiqlQuery {
  const p = new Parser(tokenize(text), ctx);
  return p.query();
}

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  const re = /\s+|\[([^\]]*)\]|'((?:[^']|'')*)'|"((?:[^"]|"")*)"|@(\w+)|(\d+)(?![\w.])|([A-Za-z_][\w.]*)|(>=|<=|<>|=|>|<)|([(),])/y;
  for (let i = 0; i < text.length; ) {
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) throw new WiqlError(`TF51006: The query statement is not valid near character ${i + 1}.`);
    i = re.lastIndex;
    if (m[1] !== undefined) out.push({ t: 'field', v: m[1] });
    else if (m[2] !== undefined) out.push({ t: 'str', v: m[2].replace(/''/g, "'") });
    else if (m[3] !== undefined) out.push({ t: 'str', v: m[3].replace(/""/g, '"') });
    else if (m[4] !== undefined) out.push({ t: 'macro', v: m[4] });
    else if (m[5] !== undefined) out.push({ t: 'num', v: m[5] });
    else if (m[6] !== undefined) out.push({ t: 'word', v: m[6] });
    else if (m[7] !== undefined) out.push({ t: 'op', v: m[7] });
    else if (m[8] !== undefined) out.push({ t: 'punct', v: m[8] });
  }
  return out;
}

type Predicate = (row: WiqlRow) => boolean;

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[], private readonly ctx: WiqlContext) {}

  query(): WiqlQuery {
    this.keyword('SELECT');
    do this.field(); while (this.accept('punct', ','));
    this.keyword('FROM');
    if (this.next()?.v.toLowerCase() !== 'workitems') throw this.error('expected FROM WorkItems');
    const where = this.acceptWord('WHERE') ? this.or() : () => true;
    const orderBy: WiqlQuery['orderBy'] = [];
    if (this.acceptWord('ORDER')) {
      this.keyword('BY');
      do {
        const field = this.field();
        const desc = this.acceptWord('DESC');
        if (!desc) this.acceptWord('ASC');
        orderBy.push({ field, desc });
      } while (this.accept('punct', ','));
    }
    if (this.i < this.tokens.length) throw this.error(`unexpected ${this.tokens[this.i]!.v}`);
    return { where, orderBy };
  }

  private or(): Predicate {
    const parts = [this.and()];
    while (this.acceptWord('OR')) parts.push(this.and());
    return (row) => parts.some((p) => p(row));
  }

  private and(): Predicate {
    const parts = [this.primary()];
    while (this.acceptWord('AND')) parts.push(this.primary());
    return (row) => parts.every((p) => p(row));
  }

  private primary(): Predicate {
    if (this.accept('punct', '(')) {
      const inner = this.or();
      if (!this.accept('punct', ')')) throw this.error('expected )');
      return inner;
    }
    const field = this.field();
    const negated = this.acceptWord('NOT');
    if (this.acceptWord('IN')) {
      if (!this.accept('punct', '(')) throw this.error('expected (');
      const values: string[] = [];
      do values.push(this.value()); while (this.accept('punct', ','));
      if (!this.accept('punct', ')')) throw this.error('expected )');
      return (row) => values.some((v) => compare(field, row, v, '=', this.ctx)) !== negated;
    }
    if (this.acceptWord('CONTAINS')) {
      const value = this.value();
      return (row) => contains(field, row, value) !== negated;
    }
    if (negated) throw this.error('expected IN or CONTAINS after NOT');
    const op = this.next();
    if (op?.t !== 'op') throw this.error('expected an operator');
    const value = this.value();
    if (DATE_FIELDS.has(field.toLowerCase()) && !this.ctx.timePrecision && /\d:\d\d/.test(value)) {
      throw new WiqlError('VS402625: Dates and times must be specified without a time part unless the query asks for time precision.');
    }
    return (row) => compare(field, row, value, op.v, this.ctx);
  }

  private field(): string {
    const token = this.next();
    if (token?.t !== 'field' && token?.t !== 'word') throw this.error('expected a field');
    const known = FIELDS.find((f) => f.toLowerCase() === token.v.toLowerCase());
    if (!known) throw new WiqlError(`TF51005: The query references a field that does not exist. The error is caused by «${token.v}».`);
    return known;
  }

  private value(): string {
    const token = this.next();
    if (token?.t === 'str' || token?.t === 'num') return token.v;
    if (token?.t === 'macro' && token.v.toLowerCase() === 'project') return this.ctx.project;
    throw this.error(`unsupported value ${token?.v ?? '(end)'}`);
  }

  private keyword(word: string): void {
    if (!this.acceptWord(word)) throw this.error(`expected ${word}`);
  }

  private acceptWord(word: string): boolean {
    return this.accept('word', word);
  }

  private accept(t: Token['t'], v: string): boolean {
    const token = this.tokens[this.i];
    if (token?.t !== t || token.v.toLowerCase() !== v.toLowerCase()) return false;
    this.i++;
    return true;
  }

  private next(): Token | undefined {
    return this.tokens[this.i++];
  }

  private error(what: string): WiqlError {
    return new WiqlError(`TF51006: The query statement is not valid: ${what}.`);
  }
}

function valueOf(field: string, row: WiqlRow): string | undefined {
  if (field === 'System.Id') return String(row.id);
  return row.fields[field];
}

function compare(field: string, row: WiqlRow, literal: string, op: string, ctx: WiqlContext): boolean {
  const actual = valueOf(field, row);
  if (actual === undefined) return op === '<>';
  let diff: number;
  if (DATE_FIELDS.has(field.toLowerCase())) {
    const day = (ms: number): number => (ctx.timePrecision ? ms : Math.floor(ms / 86_400_000));
    diff = day(Date.parse(actual)) - day(Date.parse(literal));
    if (Number.isNaN(diff)) throw new WiqlError(`TF51012: The value ${literal} is not a valid date.`);
  } else if (field === 'System.Id') {
    diff = Number(actual) - Number(literal);
  } else {
    diff = actual.toLowerCase() === literal.toLowerCase() ? 0 : actual.toLowerCase() < literal.toLowerCase() ? -1 : 1;
  }
  switch (op) {
    case '=': return diff === 0;
    case '<>': return diff !== 0;
    case '>=': return diff >= 0;
    case '<=': return diff <= 0;
    case '>': return diff > 0;
    default: return diff < 0;
  }
}

function contains(field: string, row: WiqlRow, literal: string): boolean {
  const actual = valueOf(field, row) ?? '';
  const wanted = literal.toLowerCase();
  if (field === 'System.Tags') return actual.split(';').some((tag) => tag.trim().toLowerCase() === wanted);
  return actual.toLowerCase().includes(wanted);
}
