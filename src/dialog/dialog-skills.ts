/**
 * The skills the design dialogue offers the model: a narrow seam, so the skills catalog
 * (`src/catalog/`) plugs in without the dialogue learning how skills are found. The model sees
 * each skill's name and description and loads one's body with `load_skill {name}`.
 */
export interface DialogSkill {
  name: string;
  description: string;
}

export interface DialogSkills {
  /** The skills offered to a conversation about `project` (the dialogue is no pipeline: those that name none). */
  list(project: string): Promise<DialogSkill[]>;
  /** A skill's body and the names of its resource files; null when the project has no such skill. */
  load(project: string, name: string): Promise<{ body: string; files: string[] } | null>;
}

/** Injection token of the dialogue's skills. */
export const DIALOG_SKILLS = Symbol('DIALOG_SKILLS');

/** Until the catalog is wired in: no skills. */
export const NO_DIALOG_SKILLS: DialogSkills = {
  list: async () => [],
  load: async () => null,
};
