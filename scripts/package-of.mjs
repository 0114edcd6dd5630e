// The npm package a module's path or URL is inside (`@scope/name` or `name`), or null when it is
// not under node_modules: how scripts/bundle-server.mjs lists each chunk's packages, and how the
// boot-loads test reads the URLs a boot loaded, so both name a package the same way.
export function packageOf(id) {
  const at = id.lastIndexOf('/node_modules/');
  if (at < 0) return null;
  const parts = id.slice(at + '/node_modules/'.length).split('/');
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}
