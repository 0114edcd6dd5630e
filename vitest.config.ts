import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// SWC emits the decorator metadata NestJS's dependency injection reads; Vite's own transform does not.
export default defineConfig({
  plugins: [
    swc.vite({
      jsc: {
        target: 'es2023',
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      },
    }),
  ],
  test: {
    // In CI a JSON report as well, from which .ci/run prints one plain "N passed, N failed" line.
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: '.ci/test-report.json' },
    setupFiles: ['test/setup/reflect-metadata.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['src/**/*.spec.ts', 'test/**/*.test.ts', 'web/src/**/*.test.ts'],
          exclude: ['test/e2e/**'],
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
      {
        // The end-to-end files time the built server's first answers from process start (the
        // spec's 2 s): they run last and one at a time, so they measure the server's boot and
        // not two other test files competing for this machine's two cores.
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
