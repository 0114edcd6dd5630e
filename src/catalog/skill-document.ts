import { parse as parseYaml } from 'yaml';

/**
 * `SKILL.md` read and checked: the Agent Skills format as the contract fixes it. Pure; every
 * problem is one sentence naming what to fix, and the skill is then left out by the caller.
 */
export interface SkillDocument {
  name: string;
  description: string;
  pipelines: string[] | null;
  body: string;
}

/** Lowercase letters, digits and single hyphens between them (the open format's rule), at most 64 characters. */
export const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_NAME_LENGTH = 64;
export const MAX_DESCRIPTION_LENGTH = 1024;
/** A pipeline name as the configuration spells one. */
const PIPELINE_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

/** A value quoted for a finding: JSON's escapes, and invisible or direction-changing characters escaped too (a folder name is anyone's choice). */
function quoted(value: string): string {
  return JSON.stringify(value).replace(/[\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export type SkillDocumentResult = { ok: true; skill: SkillDocument } | { ok: false; problem: string };

/** Why `name` is not a valid skill name, or null when it is. */
export function skillNameProblem(name: string): string | null {
  if (name.length === 0) return 'name is empty';
  if (name.length > MAX_NAME_LENGTH) return `name is ${name.length} characters long; at most ${MAX_NAME_LENGTH} are allowed`;
  if (!SKILL_NAME.test(name)) return `name ${quoted(name)} may hold only lowercase letters, digits and single hyphens between them`;
  return null;
}

/** Splits off the front matter: `---` on the first line, up to the next line that is `---`. */
function splitFrontMatter(text: string): { yaml: string; body: string } | null {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trimEnd() !== '---') return null;
  const end = lines.findIndex((line, i) => i > 0 && line.trimEnd() === '---');
  if (end === -1) return null;
  return { yaml: lines.slice(1, end).join('\n'), body: lines.slice(end + 1).join('\n') };
}

/**
 * Parses `text` as the `SKILL.md` of the folder named `folder`: front matter present and a YAML
 * mapping, `name` valid and equal to the folder's name, `description` a non-empty string of at
 * most 1024 characters, `pipelines` (when present) a non-empty list of pipeline names. Other
 * keys of the open format (`license`, `compatibility`, `metadata`, `allowed-tools`) are accepted
 * and not used.
 */
export function parseSkillDocument(text: string, folder: string): SkillDocumentResult {
  const fail = (problem: string): SkillDocumentResult => ({ ok: false, problem });
  const split = splitFrontMatter(text);
  if (!split) return fail('SKILL.md must start with YAML front matter between two `---` lines');
  let meta: unknown;
  try {
    meta = parseYaml(split.yaml);
  } catch (error) {
    return fail(`the front matter is not valid YAML (${(error as Error).message.split('\n')[0]})`);
  }
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return fail('the front matter must be a YAML mapping with name and description');
  const fields = meta as Record<string, unknown>;
  if (typeof fields.name !== 'string') return fail('the front matter has no name (a string)');
  const name = fields.name.trim();
  const nameProblem = skillNameProblem(name);
  if (nameProblem) return fail(nameProblem);
  if (name !== folder) return fail(`name ${quoted(name)} must equal the folder's name ${quoted(folder)}`);
  if (typeof fields.description !== 'string' || fields.description.trim() === '') return fail('the front matter has no description (a non-empty string)');
  const description = fields.description.trim();
  if (description.length > MAX_DESCRIPTION_LENGTH) return fail(`description is ${description.length} characters long; at most ${MAX_DESCRIPTION_LENGTH} are allowed`);
  const pipelines = readPipelines(fields.pipelines);
  if ('problem' in pipelines) return fail(pipelines.problem);
  return { ok: true, skill: { name, description, pipelines: pipelines.list, body: split.body.trim() } };
}

function readPipelines(raw: unknown): { list: string[] | null } | { problem: string } {
  if (raw === undefined || raw === null) return { list: null };
  const items = typeof raw === 'string' ? [raw] : raw;
  if (!Array.isArray(items) || items.some((p) => typeof p !== 'string')) return { problem: 'pipelines must be a list of pipeline names' };
  const list = [...new Set((items as string[]).map((p) => p.trim()))];
  if (list.length === 0) return { problem: 'pipelines lists no pipeline; leave the key out to offer the skill to every agent pipeline' };
  const bad = list.find((p) => !PIPELINE_NAME.test(p));
  if (bad !== undefined) return { problem: `pipelines names ${quoted(bad.slice(0, 80))}, which is not a pipeline name` };
  return { list };
}

/** Whether a skill with these `pipelines` is offered to a run of `pipeline`. */
export function offeredTo(pipelines: readonly string[] | null, pipeline: string): boolean {
  return pipelines === null || pipelines.includes(pipeline);
}
