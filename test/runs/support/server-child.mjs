// Runs src/main.ts in a child process without a build: TypeScript is compiled on load by SWC with
// the decorator metadata NestJS needs (the same settings as vitest.config.ts).
import { existsSync, readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import swc from '@swc/core';

registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
      const target = fileURLToPath(new URL(specifier, context.parentURL));
      const ts = target.replace(/\.js$/, '.ts');
      if (!existsSync(target) && existsSync(ts)) return { url: pathToFileURL(ts).href, format: 'module', shortCircuit: true };
    }
    return next(specifier, context);
  },
  load(url, context, next) {
    if (!url.endsWith('.ts')) return next(url, context);
    const filename = fileURLToPath(url);
    const { code } = swc.transformSync(readFileSync(filename, 'utf8'), {
      filename,
      sourceMaps: 'inline',
      module: { type: 'es6' },
      jsc: {
        target: 'es2023',
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      },
    });
    return { format: 'module', source: code, shortCircuit: true };
  },
});

await import('reflect-metadata');
await import(pathToFileURL(process.argv[2]).href);
