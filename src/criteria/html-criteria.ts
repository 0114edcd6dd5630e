import { type CriteriaParse, NO_CRITERIA, isCriteriaHeading, numberCriteria } from './criteria.js';
import { htmlBlocks } from './html-blocks.js';

/** A typed list marker or checkbox at the start of a line of a field without list markup. */
const TYPED_MARKER = /^(?:[-*+•]|\d{1,9}[.)])?[ \t]*(?:\[[ xX]?\][ \t]*)?/;

/**
 * A rich-text field that holds only criteria (Azure DevOps's acceptance-criteria field): its list
 * items when it has any, else each line of text, with a typed `- ` / `1.` / `[ ]` dropped.
 */
export function parseHtmlCriteriaField(html: string | null | undefined): CriteriaParse {
  if (!html || html.trim() === '') return NO_CRITERIA;
  const blocks = htmlBlocks(html);
  const items = blocks.filter((b) => b.kind === 'item');
  if (items.length > 0) return numberCriteria(items.map((b) => b.text));
  return numberCriteria(blocks.filter((b) => b.kind === 'text').map((b) => b.text.replace(TYPED_MARKER, '')));
}

/** The list items under the first "Acceptance criteria" heading of an HTML description, up to the next heading. */
export function parseHtmlCriteriaSection(html: string | null | undefined): CriteriaParse {
  const texts: string[] = [];
  let inSection = false;
  for (const block of htmlBlocks(html)) {
    if (block.kind === 'heading') {
      if (inSection) break;
      inSection = isCriteriaHeading(block.text);
    } else if (inSection && block.kind === 'item') {
      texts.push(block.text);
    }
  }
  return numberCriteria(texts);
}
