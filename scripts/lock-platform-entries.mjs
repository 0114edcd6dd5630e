// Adds lock entries for optional platform builds that this machine's npm registry mirror does not
// carry (e.g. @swc/core-darwin-arm64). `npm install` silently leaves them out of the lock, and
// `npm ci` then refuses the lock as out of sync. npm never fetches a build for another platform,
// so an entry naming its version, os and cpu is all `npm ci` needs. Run after changing dependencies:
//   node scripts/lock-platform-entries.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android'];
const CPU = { x64: 'x64', arm64: 'arm64', arm: 'arm', ia32: 'ia32', ppc64: 'ppc64', s390x: 's390x', riscv64: 'riscv64' };

let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    const here = `${path ? `${path}/` : ''}node_modules/${name}`;
    if (lock.packages[here] || lock.packages[`node_modules/${name}`]) continue;
    const parts = name.split('/').pop().split('-');
    const os = parts.find((p) => OS.includes(p));
    const cpu = parts.map((p) => CPU[p]).find(Boolean);
    if (!os || !cpu || !/^\d+\.\d+\.\d+/.test(spec)) continue; // not a platform build: leave it to npm
    const libc = parts.includes('musl') ? ['musl'] : parts.includes('gnu') || parts.includes('gnueabihf') ? ['glibc'] : undefined;
    lock.packages[`node_modules/${name}`] = { version: spec, optional: true, os: [os], cpu: [cpu], ...(libc ? { libc } : {}) };
    added += 1;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} platform entr${added === 1 ? 'y' : 'ies'} to package-lock.json`);
