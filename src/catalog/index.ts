/**
 * What other modules use of the skills catalog. An agent that should have skills (a pipeline, the
 * design dialogue) asks `SkillCatalogService.skillsFor({project, repository?, pipeline})` (import
 * CatalogModule), appends `skillsPromptSection(skills, secrets)` to its system prompt and passes
 * `loadSkillTool(skills, secrets)` in the session's `extraTools`.
 */
export { CatalogModule } from './catalog.module.js';
export { loadSkillTool } from './load-skill.tool.js';
export { type Catalog, SkillCatalogService, type SkillQuery } from './skill-catalog.service.js';
export { type Skill, SkillSource } from './skill-types.js';
export { skillsPromptSection } from './skills-prompt.js';
