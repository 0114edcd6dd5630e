import { ContextFile, contextFilePath } from '../contexts/context-files.js';
import { deriveContextTemplate } from '../contexts/context-template.js';
import { parseContextYaml } from '../contexts/context-yaml.js';
import type { MissingContextFiles } from '../contexts/missing-context-files.js';
import { type TreeFile, writeSandboxFiles } from '../contexts/sandbox-files.js';
import { readTreeFacts } from '../contexts/tree-facts.js';
import type { ContextWriter, ContextWriterTree, WrittenContextFiles } from './context-writer.js';

/**
 * Writes the missing files from a template derived from the tree's own files (no model): the
 * toolchain's commands in `context.yaml`, a `principles.md` skeleton for the team to fill in.
 * A context that keeps its `context.yaml` gets principles that name its own path.
 */
export class TemplateContextWriter implements ContextWriter {
  readonly kind = 'template';

  async write(tree: ContextWriterTree, missing: MissingContextFiles): Promise<WrittenContextFiles> {
    const facts = await readTreeFacts(tree.sandbox, tree.repo.name);
    const files: TreeFile[] = [];
    const sources = new Set<string>();
    for (const context of missing.contexts) {
      const existingYaml = context.existing[ContextFile.ContextYaml];
      let path = '.';
      if (existingYaml !== undefined) {
        try {
          path = parseContextYaml(tree.repo.name, context.name, existingYaml).path;
        } catch {
          // The gate reports a bad context.yaml; the principles skeleton does not need its path.
        }
      }
      const template = deriveContextTemplate(facts, { repo: tree.repo.name, name: context.name, path });
      template.derivedFrom.forEach((f) => sources.add(f));
      for (const file of context.files) {
        files.push({ path: contextFilePath(context.name, file), content: file === ContextFile.ContextYaml ? template.contextYaml : template.principles });
      }
    }
    await writeSandboxFiles(tree.sandbox, files);
    const from = sources.size > 0 ? `derived from the repository's ${[...sources].map((f) => `\`${f}\``).join(', ')}` : 'written from a blank template (no toolchain was recognised)';
    return {
      files: files.map((f) => f.path),
      how: `The files were ${from}, without a model: check the commands in \`context.yaml\` and write your team's principles into \`principles.md\` before merging.`,
    };
  }
}
