/**
 * For the prompt specs (src/agent/prompt/): the untrusted-data blocks of a prompt, parsed the way a careful reader
 * would (a block ends at the first closing tag carrying its own id), and the text outside them.
 */
export interface ParsedBlock {
  source: string;
  id: string;
  content: string;
}

const BLOCK = /<untrusted-data source="([a-z0-9-]+)" id="([0-9a-f]{24})">\n([\s\S]*?)\n<\/untrusted-data id="\2">/g;

export function blocksOf(text: string): ParsedBlock[] {
  return [...text.matchAll(BLOCK)].map((m) => ({ source: m[1]!, id: m[2]!, content: m[3]! }));
}

export function outsideBlocks(text: string): string {
  return text.replace(BLOCK, '[block]');
}
