import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { buildOpenApiDocument } from './openapi-document.js';

/** The Swagger UI files the page uses, by name; nothing else under the folder is served. */
const ASSET_TYPES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/**
 * What /api/docs serves, loaded on its first request: the document (built once, then kept), the
 * UI's page and start script, and Swagger UI's own files from `swagger-ui-dist` (the copy
 * `@nestjs/swagger` depends on). The page has no inline script or style.
 */
export class DocsPages {
  /** The document, its page and the page's start script: built once, on the first request. */
  readonly json: string;
  readonly html: string;
  readonly initScript: string;
  private readonly assetsFolder: string;

  /** `docsPath`: where the page and its files are served (serve-openapi.ts owns the routes). */
  constructor(app: INestApplication, docsPath: string) {
    const document = buildOpenApiDocument(app);
    this.json = JSON.stringify(document);
    this.html = pageHtml(document.info.title.replace(/[<>&"]/g, ''), docsPath);
    this.initScript = startScript(this.json);
    const fromSwagger = createRequire(createRequire(import.meta.url).resolve('@nestjs/swagger'));
    this.assetsFolder = (fromSwagger('swagger-ui-dist/absolute-path.js') as () => string)();
  }

  async asset(name: string): Promise<{ type: string; body: Buffer } | null> {
    const type = Object.hasOwn(ASSET_TYPES, name) ? ASSET_TYPES[name] : undefined;
    if (!type) return null;
    return { type, body: await readFile(join(this.assetsFolder, name)) };
  }
}

function pageHtml(title: string, docs: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <title>${title} API</title>
  <link rel="stylesheet" type="text/css" href="${docs}/swagger-ui.css">
  <link rel="stylesheet" type="text/css" href="${docs}/index.css">
  <link rel="icon" type="image/png" href="${docs}/favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="${docs}/favicon-16x16.png" sizes="16x16">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${docs}/swagger-ui-bundle.js" charset="UTF-8"></script>
  <script src="${docs}/swagger-ui-init.js" charset="UTF-8"></script>
</body>
</html>
`;
}

/** Starts the UI on the document itself (no second request for it), without the explorer's URL bar. */
function startScript(documentJson: string): string {
  return `window.onload = function () {
  window.ui = SwaggerUIBundle({
    spec: ${documentJson},
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
};
`;
}
