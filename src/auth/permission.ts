/**
 * The closed permission catalog (spec "Roles and permissions"). Every permission the service
 * knows is named here exactly once; nothing else spells these strings.
 */
export const Permission = {
  RunsRead: 'runs.read',
  RunsWatch: 'runs.watch',
  RunsControl: 'runs.control',
  RunsDelete: 'runs.delete',
  ProjectsInit: 'projects.init',
  CatalogRead: 'catalog.read',
  DiagnosticsRead: 'diagnostics.read',
  DiagnosticsProbe: 'diagnostics.probe',
  DialogWrite: 'dialog.write',
  ConfigRead: 'config.read',
  ConfigWrite: 'config.write',
  ConfigExport: 'config.export',
  ConfigImport: 'config.import',
  SecretsRead: 'secrets.read',
  SecretsWrite: 'secrets.write',
  AccessRead: 'access.read',
  AccessWrite: 'access.write',
  ArchiveExport: 'archive.export',
  ArchiveImport: 'archive.import',
  IdentityRead: 'identity.read',
} as const;
export type Permission = (typeof Permission)[keyof typeof Permission];

/** Every permission of the catalog, sorted. */
export const ALL_PERMISSIONS: readonly Permission[] = Object.freeze(Object.values(Permission).sort());

const CATALOG: ReadonlySet<string> = new Set<string>(ALL_PERMISSIONS);

/** Exact, case-sensitive membership test: `Runs.Read` is not a permission. */
export function isPermission(name: unknown): name is Permission {
  return typeof name === 'string' && CATALOG.has(name);
}
