import { describe, expect, it } from 'vitest';
import { MAX_CRITERIA, MAX_CRITERION_CHARS } from '../criteria/criteria.js';
import { criteriaHtml } from './azure-devops/azure-devops-ticket-creation.js';
import { adfToText } from './jira/adf-to-text.js';
import { descriptionDocument, descriptionWiki } from './jira/jira-ticket-creation.js';
import { Platform } from './platform.js';
import { parseTicketCriteria } from './ticket-criteria.js';
import { markdownWithCriteria } from './ticket-creation.js';

const texts = (platform: Platform, description: string | null, acceptanceCriteria?: string | null) =>
  parseTicketCriteria(platform, { description, acceptanceCriteria }).criteria.map((c) => `${c.id}: ${c.text}`);

describe.each([Platform.GitHub, Platform.GitLab])('Markdown descriptions (%s)', (platform) => {
  it('takes the task items under the heading, numbered in order, up to the next heading of any level', () => {
    const body = [
      'Intro text.',
      '- [ ] not a criterion: before the heading',
      '',
      '### Acceptance Criteria:',
      '',
      '- [ ] the greeting says hello',
      '* [x] it ends with a newline',
      '  continued on the next line',
      '+ [X] numbered   spacing   collapsed',
      '1. [ ] an ordered task item',
      '- a plain bullet is no criterion',
      'A paragraph between.',
      '',
      '- [ ] after the paragraph',
      '#### Notes',
      '- [ ] under another heading: not taken',
    ].join('\n');
    expect(texts(platform, body)).toEqual([
      'c1: the greeting says hello',
      'c2: it ends with a newline continued on the next line',
      'c3: numbered spacing collapsed',
      'c4: an ordered task item',
      'c5: after the paragraph',
    ]);
  });

  it('matches the heading at any level, in any case, with a closing run of #s, emphasis or a colon', () => {
    for (const heading of ['# acceptance criteria', '###### ACCEPTANCE CRITERIA ##', '## **Acceptance criteria:**', '## Acceptance  criteria :']) {
      expect(texts(platform, `${heading}\n- [ ] one`)).toEqual(['c1: one']);
    }
    expect(texts(platform, '## Acceptance criteria (draft)\n- [ ] one')).toEqual([]);
    expect(texts(platform, '#Acceptance criteria\n- [ ] one')).toEqual([]); // no space: no heading in CommonMark
  });

  it('ignores a fake heading and items inside fenced code blocks and HTML comments', () => {
    const body = [
      '```md',
      '## Acceptance criteria',
      '- [ ] fake, inside the fence',
      '```',
      '<!--',
      '## Acceptance criteria',
      '- [ ] fake, inside a comment',
      '-->',
      '## Acceptance criteria',
      '- [ ] real one',
      '~~~~',
      '## Next heading inside a fence does not end the list',
      '~~~~',
      '- [ ] real two',
    ].join('\n');
    expect(texts(platform, body)).toEqual(['c1: real one', 'c2: real two']);
  });

  it('no heading, no list, or no description: no criteria', () => {
    expect(texts(platform, null)).toEqual([]);
    expect(texts(platform, '- [ ] a task list without the heading')).toEqual([]);
    expect(texts(platform, '## Acceptance criteria\n\nJust prose.')).toEqual([]);
  });

  it('takes at most MAX_CRITERIA items of at most MAX_CRITERION_CHARS, and says how many were dropped or cut', () => {
    const items = Array.from({ length: 500 }, (_, i) => `- [ ] item ${i + 1}`);
    const parsed = parseTicketCriteria(platform, { description: `## Acceptance criteria\n${items.join('\n')}\n- [ ] ${'x'.repeat(2000)}` });
    expect(parsed.criteria).toHaveLength(MAX_CRITERIA);
    expect(parsed.criteria.at(-1)).toEqual({ id: `c${MAX_CRITERIA}`, text: `item ${MAX_CRITERIA}` });
    expect(parsed.dropped).toBe(401);
    const long = parseTicketCriteria(platform, { description: `## Acceptance criteria\n- [ ] ${'é'.repeat(2000)}` });
    expect(long.criteria[0]!.text).toHaveLength(MAX_CRITERION_CHARS);
    expect(long.criteria[0]!.text.endsWith('…')).toBe(true);
    expect(long.clipped).toBe(1);
  });

  it('strips control characters so a criterion is one line', () => {
    expect(texts(platform, '## Acceptance criteria\n- [ ] a\u0007b\u2028c')).toEqual(['c1: a b c']);
  });

  it('reads back what filing writes, markup in the criteria kept as text', () => {
    const given = ['The greeting says hello', 'It works with `code` and <b>tags</b> & [links](x)', '[ ] leading brackets'];
    expect(texts(platform, markdownWithCriteria({ body: 'Some body.', criteria: given }))).toEqual(given.map((t, i) => `c${i + 1}: ${t}`));
  });
});

describe('Azure DevOps work items', () => {
  const ado = (field: string | null, description: string | null = null) => texts(Platform.AzureDevOps, description, field);

  it('takes the list items of the acceptance-criteria field, tags stripped and entities decoded', () => {
    const field = '<div><ul><li>Shows <b>hello</b> &amp; waves</li><li><div>Second</div><div>line</div></li><li> </li><li>Café &#233;&#x21; &lt;tag&gt;</li></ul></div>';
    expect(ado(field)).toEqual(['c1: Shows hello & waves', 'c2: Second line', 'c3: Café é! <tag>']);
  });

  it('a nested list gives its items after their parent', () => {
    expect(ado('<ol><li>Parent<ul><li>Child</li></ul></li><li>Next</li></ol>')).toEqual(['c1: Parent', 'c2: Child', 'c3: Next']);
  });

  it('a field without list markup: each line, with typed markers dropped', () => {
    expect(ado('<div>- first</div><div>2. second</div><div>[ ] third<br>[x] fourth</div><p>&nbsp;</p>')).toEqual(['c1: first', 'c2: second', 'c3: third', 'c4: fourth']);
  });

  it('hostile HTML: script and style vanish, attributes with > in quotes, comments, unterminated tags, no catastrophic time', () => {
    const field = '<script>alert("<li>x</li>")</script><style>li{}</style><ul><li title="a>b" onclick=\'x>y\'>Real</li><!-- <li>hidden</li> --><li>Two</li></ul><li';
    expect(ado(field)).toEqual(['c1: Real', 'c2: Two']);
    const hostile = `<ul>${'<li'.repeat(50_000)}${'<'.repeat(50_000)}${'&#'.repeat(50_000)}</ul>`;
    const started = performance.now();
    parseTicketCriteria(Platform.AzureDevOps, { description: null, acceptanceCriteria: hostile });
    parseTicketCriteria(Platform.AzureDevOps, { description: null, acceptanceCriteria: `<ul>${'<li>a'.repeat(20_000)}</ul>` });
    // Linear work: far under a second even on a loaded machine (a backtracking pattern takes minutes here).
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('takes at most MAX_CRITERIA items from the field', () => {
    const parsed = parseTicketCriteria(Platform.AzureDevOps, { description: null, acceptanceCriteria: `<ul>${Array.from({ length: 500 }, (_, i) => `<li>c ${i}</li>`).join('')}</ul>` });
    expect(parsed.criteria).toHaveLength(MAX_CRITERIA);
    expect(parsed.dropped).toBe(400);
  });

  it('without the field: the heading and list of the HTML description (a code block\'s fake heading ignored), or of a Markdown one', () => {
    const html = '<p>Intro</p><pre><h2>Acceptance criteria</h2><ul><li>fake</li></ul></pre><h3>Acceptance criteria</h3><ul><li>one</li><li>two</li></ul><h3>Notes</h3><ul><li>not taken</li></ul>';
    expect(ado(null, html)).toEqual(['c1: one', 'c2: two']);
    expect(ado('', '## Acceptance criteria\n- [ ] from markdown')).toEqual(['c1: from markdown']);
    expect(ado(null, '## Acceptance criteria\n- [ ] totals < 100 stay exact')).toEqual(['c1: totals < 100 stay exact']);
  });

  it('reads back the field as filing writes it, HTML in a criterion escaped', () => {
    const given = ['Shows <hello> & "waves"', 'Second'];
    expect(ado(criteriaHtml(given))).toEqual(['c1: Shows <hello> & "waves"', 'c2: Second']);
  });
});

describe('Jira issues', () => {
  const jira = (description: string) => texts(Platform.Jira, description);

  it('wiki markup (REST v2): an hN. heading, *, - and # items, up to the next heading; {code} blocks ignored', () => {
    const wiki = [
      'Some intro.',
      '{code:markdown}',
      'h2. Acceptance criteria',
      '* fake inside code',
      '{code}',
      'h3. Acceptance Criteria',
      '* first',
      '** nested second',
      '# numbered third',
      '- dashed [with brackets\\]',
      'h3. Notes',
      '* not taken',
    ].join('\n');
    expect(jira(wiki)).toEqual(['c1: first', 'c2: nested second', 'c3: numbered third', 'c4: dashed [with brackets]']);
  });

  it('a bold line or a plain "Acceptance Criteria:" line is a heading, as Jira users write it', () => {
    expect(jira('*Acceptance Criteria:*\n* one\n* two\n*Notes*\n* not taken')).toEqual(['c1: one', 'c2: two']);
    expect(jira('Acceptance Criteria:\n- one')).toEqual(['c1: one']);
  });

  it('an ADF description (REST v3), converted to text: heading, action items and bullets; a code block\'s fake heading ignored', () => {
    const doc = {
      type: 'doc', version: 1, content: [
        { type: 'codeBlock', content: [{ type: 'text', text: '# Acceptance criteria\n- fake' }] },
        { type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: 'Acceptance criteria' }] },
        { type: 'taskList', content: [
          { type: 'taskItem', attrs: { state: 'TODO' }, content: [{ type: 'text', text: 'action one' }] },
          { type: 'taskItem', attrs: { state: 'DONE' }, content: [{ type: 'text', text: 'action two' }] },
        ] },
        { type: 'bulletList', content: [{ type: 'listItem', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'bullet three' }] }] }] },
        { type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: 'Other' }] },
        { type: 'bulletList', content: [{ type: 'listItem', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'not taken' }] }] }] },
      ],
    };
    expect(jira(adfToText(doc))).toEqual(['c1: action one', 'c2: action two', 'c3: bullet three']);
  });

  it('reads back the ADF description filing writes, wiki and Markdown specials in it kept as text', () => {
    const given = ['Totals add up {exactly}', 'Pipes | and [brackets] and back\\slash', 'Plain'];
    expect(jira(adfToText(descriptionDocument({ body: 'Body text.', criteria: given })))).toEqual(given.map((t, i) => `c${i + 1}: ${t}`));
  });

  it('reads back the wiki description filing writes on Data Center, wiki specials escaped', () => {
    const given = ['Totals add up {exactly}', 'Pipes | and [brackets] and back\\slash', 'Plain'];
    const wiki = descriptionWiki({ body: 'Body text.', criteria: given });
    expect(wiki).toContain('\\{exactly\\}');
    expect(jira(wiki)).toEqual(given.map((t, i) => `c${i + 1}: ${t}`));
  });

  it('500 items: the first MAX_CRITERIA', () => {
    const parsed = parseTicketCriteria(Platform.Jira, { description: `h2. Acceptance criteria\n${Array.from({ length: 500 }, (_, i) => `* item ${i}`).join('\n')}` });
    expect(parsed.criteria).toHaveLength(MAX_CRITERIA);
    expect(parsed.dropped).toBe(400);
  });
});

describe('tickets the design dialogue files read back with their criteria', () => {
  const criteria = ['Totals round once, per cart', 'It\'s "exact" <to the cent> & tested', 'Works offline'];
  const numbered = criteria.map((t, i) => `c${i + 1}: ${t}`);
  const body = 'Why and what.\n\n## Acceptance criteria in prose is not a heading here\n\nMore text.';

  it('GitHub and GitLab: the Markdown body with its task list', () => {
    for (const platform of [Platform.GitHub, Platform.GitLab]) {
      expect(texts(platform, markdownWithCriteria({ body: 'Why and what.', criteria }))).toEqual(numbered);
    }
  });

  it('Azure DevOps: the acceptance-criteria field', () => {
    expect(texts(Platform.AzureDevOps, '<p>Why</p>', criteriaHtml(criteria))).toEqual(numbered);
  });

  it('Jira: the ADF document (v3, converted to text as the client reads it) and the wiki form (v2)', () => {
    expect(texts(Platform.Jira, adfToText(descriptionDocument({ body, criteria })))).toEqual(numbered);
    const wiki = ['Why and what.', '', 'h2. Acceptance criteria', '', ...criteria.map((c) => `* [ ] ${c}`)].join('\n');
    expect(texts(Platform.Jira, wiki)).toEqual(numbered);
  });
});
