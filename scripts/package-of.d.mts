/** The npm package a module's path or URL is inside (`@scope/name` or `name`), or null when it is not under node_modules. */
export function packageOf(id: string): string | null;
