import { ALL_PERMISSIONS, Permission } from './permission.js';

/** The three built-in roles (spec "Roles and permissions"). Names are lower-case; role names fold case. */
export const BuiltInRole = {
  Reader: 'reader',
  Operator: 'operator',
  Admin: 'admin',
} as const;
export type BuiltInRole = (typeof BuiltInRole)[keyof typeof BuiltInRole];

const READER: readonly Permission[] = [
  Permission.RunsRead,
  Permission.RunsWatch,
  Permission.CatalogRead,
  Permission.DiagnosticsRead,
  Permission.IdentityRead,
];

const OPERATOR: readonly Permission[] = [
  ...READER,
  Permission.RunsControl,
  Permission.RunsDelete,
  Permission.ProjectsInit,
  Permission.DiagnosticsProbe,
  Permission.DialogWrite,
];

/** Permissions each built-in role holds, each list sorted. */
export const BUILT_IN_ROLE_PERMISSIONS: Readonly<Record<BuiltInRole, readonly Permission[]>> = Object.freeze({
  reader: Object.freeze([...READER].sort()),
  operator: Object.freeze([...OPERATOR].sort()),
  admin: ALL_PERMISSIONS,
});

/** Built-in role names, in the order the Access surface shows them. */
export const BUILT_IN_ROLES: readonly BuiltInRole[] = Object.freeze([BuiltInRole.Reader, BuiltInRole.Operator, BuiltInRole.Admin]);

/** Held by every validated caller, with or without roles. */
export const IMPLICIT_PERMISSIONS: readonly Permission[] = Object.freeze([Permission.IdentityRead]);

/** Case-insensitive: `Admin` is the built-in `admin`. */
export function isBuiltInRole(name: string): boolean {
  return builtInRoleOf(name) !== null;
}

/** The built-in role a name folds to, or null. */
export function builtInRoleOf(name: string): BuiltInRole | null {
  const folded = foldRoleName(name);
  return (BUILT_IN_ROLES as readonly string[]).includes(folded) ? (folded as BuiltInRole) : null;
}

/** Role names fold case (spec rule 2); surrounding whitespace is not part of a name. */
export function foldRoleName(name: string): string {
  return name.trim().toLowerCase();
}
