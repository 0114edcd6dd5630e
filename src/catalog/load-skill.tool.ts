import { clip } from '../agent/tools/control.tools.js';
import { type AgentTool, toolError } from '../agent/tools/tool-types.js';
import { loadedSkillText } from './skills-prompt.js';
import type { Skill } from './skill-types.js';

/**
 * `load_skill {name}` (contract): the body of one of the skills offered to this run and the names
 * of its resource files. Offered by any toolset: the caller passes the skills it listed in the
 * system prompt, and only those load.
 */
export function loadSkillTool(skills: readonly Skill[], secrets: readonly string[]): AgentTool {
  const byName = new Map(skills.map((s) => [s.name, s]));
  const names = [...byName.keys()].sort();
  return {
    name: 'load_skill',
    description: 'Read one of the skills listed in your instructions (its full text and the names of its resource files) before doing the kind of work it covers.',
    parameters: { properties: { name: { type: 'string', description: 'The skill\'s name as listed.' } }, required: ['name'] },
    brief: (input) => `load_skill: ${clip(String(input.name), 80)}`,
    run: async (input) => {
      const skill = byName.get(String(input.name).trim());
      if (!skill) return toolError(`there is no skill ${JSON.stringify(clip(String(input.name), 80))}; the skills are ${names.join(', ')}`);
      return { output: loadedSkillText(skill, secrets), ok: true, exitCode: null };
    },
  };
}
