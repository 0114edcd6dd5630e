import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
const outDir = fileURLToPath(new URL('../dist/web', import.meta.url));
/** One id per build: compiled into the app and written beside it for the server (build.json). */
const build = process.env.DASHBOARD_BUILD ?? `${new Date().toISOString().slice(0, 10)}-${randomBytes(4).toString('hex')}`;

function buildStamp(): Plugin {
  return {
    name: 'dashboard-build-stamp',
    apply: 'build',
    closeBundle() {
      writeFileSync(`${outDir}/build.json`, `${JSON.stringify({ build })}\n`);
    },
  };
}

export default defineConfig({
  root,
  base: '/',
  plugins: [react(), tailwindcss(), buildStamp()],
  define: { __DASHBOARD_BUILD__: JSON.stringify(build) },
  build: {
    outDir,
    emptyOutDir: true,
    assetsDir: 'assets',
    // Inline nothing: the page's policy allows scripts, styles and images from the origin only.
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8081', '/hub': { target: 'ws://127.0.0.1:8081', ws: true } } },
});
