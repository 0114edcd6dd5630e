#!/usr/bin/env node
// Runs the CLI on a supported Node.js: the one this package installs (node@24) when the
// caller's is older than 22.12.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const [major, minor] = process.versions.node.split('.').map(Number);
if (major > 22 || (major === 22 && minor >= 12)) {
  await import(cli);
} else {
  const bundled = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
  if (!existsSync(bundled)) {
    console.error(`pipeline-service needs Node.js >= 22.12 (this is ${process.version}); run npm ci first`);
    process.exit(1);
  }
  const result = spawnSync(bundled, [cli, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
