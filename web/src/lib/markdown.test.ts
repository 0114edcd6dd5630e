import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { parseInline, parseMarkdown, renderMarkdown, safeHref } from './markdown';

const html = (md: string) => renderToStaticMarkup(renderMarkdown(md));

describe('the Markdown renderer is safe', () => {
  it('renders raw HTML as text: a <script> is never an element', () => {
    const out = html('Hello <script>alert(1)</script>\n\n<img src=x onerror=alert(1)>');
    expect(out).not.toContain('<script');
    expect(out).not.toContain('<img');
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('links only absolute http(s) URLs; javascript:, data: and relative targets stay text', () => {
    expect(html('[ok](https://example.com/a?b=1)')).toContain('<a href="https://example.com/a?b=1" target="_blank" rel="noopener noreferrer nofollow"');
    for (const bad of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', ' javascript:alert(1)', 'data:text/html,<script>x</script>', '/relative', 'vbscript:x', 'https:/one-slash']) {
      const out = html(`[click](${bad})`);
      expect(out, bad).not.toContain('<a');
      expect(out, bad).toContain('click');
    }
    expect(safeHref('java\nscript:alert(1)')).toBeNull();
    expect(html('<javascript:alert(1)>')).not.toContain('<a');
  });

  it('an entity cannot smuggle markup: &lt;script&gt; is shown as text', () => {
    const out = html('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(out).not.toContain('<script');
    expect(out).toContain('&lt;script&gt;');
  });
});

describe('the Markdown renderer renders the report', () => {
  it('headings one level down (the page keeps its one h1), emphasis, code', () => {
    expect(html('# Security scan')).toBe('<h2 class="mt-4 mb-2 font-semibold text-xl">Security scan</h2>');
    expect(parseInline('**3 findings**: a *b* `c<d>` snake_case_name')).toEqual([
      { t: 'strong', c: ['3 findings'] }, ': a ', { t: 'em', c: ['b'] }, ' ', { t: 'code', v: 'c<d>' }, ' snake_case_name',
    ]);
  });

  it('tables with escaped pipes, lists, fenced code', () => {
    const blocks = parseMarkdown('| A | B |\n| --- | --- |\n| x \\| y | 2 |\n\n- one\n- **two**\n\n1. first\n2. second\n\n```ts\nconst a = "<b>";\n```');
    expect(blocks.map((b) => b.t)).toEqual(['table', 'list', 'list', 'code']);
    expect(blocks[0]).toEqual({ t: 'table', head: [['A'], ['B']], rows: [[['x | y'], ['2']]] });
    const out = html('- one\n- two\n\n```\n<b>x</b>\n```');
    expect(out).toContain('<ul class="my-2 list-disc pl-6"><li>one</li><li>two</li></ul>');
    expect(out).toContain('&lt;b&gt;x&lt;/b&gt;');
  });

  it('the security scan\'s own report (its shape)', () => {
    const report = '# Security scan\n\n**1 finding**: 1 high.\n\n## Findings\n\n| # | Severity | Finding | Where | Found by |\n| --- | --- | --- | --- | --- |\n| 1 | high | SQL built from &lt;input&gt; | web/src/db.ts:12 | semgrep (sql) |\n';
    const out = html(report);
    expect(out).toContain('<th scope="col"');
    expect(out).toContain('SQL built from &lt;input&gt;');
    expect(out.match(/<tr>/g)).toHaveLength(2);
  });
});
