/** Repository contexts: reading them from a sandbox, the bootstrap gate, templates. */
export { CONTEXTS_DIR, CONTEXT_FILES, ContextFile, DEFAULT_CONTEXT_NAME, type RepositoryContext, contextFilePath } from './context-files.js';
export { type ContextScan, MAX_CONTEXT_FILE_BYTES, scanContexts } from './context-reader.js';
export { ContextError, type ContextSettings, parseContextYaml } from './context-yaml.js';
export {
  type ContextProblem, type ContextTree, type GateResult, type RepositoryContextsRead,
  checkContexts, contextsFromScan, contextsGate, gateFailure, initialisationCommands, readRepositoryContexts,
} from './bootstrap-gate.js';
export { type MissingContext, type MissingContextFiles, missingContextFiles, missingPaths, stillMissingIn } from './missing-context-files.js';
export { type ContextTemplate, deriveContextTemplate } from './context-template.js';
export { type TreeFacts, readTreeFacts } from './tree-facts.js';
export { type TreeFile, writeSandboxFiles } from './sandbox-files.js';
