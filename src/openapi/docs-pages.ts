import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { buildOpenApiDocument } from './openapi-document.js';

const DOCS = '/api/docs';

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
  private readonly document: OpenAPIObject;
  private readonly documentJson: string;
  private readonly assetsFolder: string;

  constructor(app: INestApplication) {
    this.document = buildOpenApiDocument(app);
    this.documentJson = JSON.stringify(this.document);
    const fromSwagger = createRequire(createRequire(import.meta.url).resolve('@nestjs/swagger'));
    this.assetsFolder = (fromSwagger('swagger-ui-dist/absolute-path.js') as () => string)();
  }

  json(): string {
    return this.documentJson;
  }

  html(): string {
    const title = this.document.info.title.replace(/[<>&"]/g, '');
    return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <title>${title} API</title>
  <link rel="stylesheet" type="text/css" href="${DOCS}/swagger-ui.css">
  <link rel="stylesheet" type="text/css" href="${DOCS}/index.css">
  <link rel="icon" type="image/png" href="${DOCS}/favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="${DOCS}/favicon-16x16.png" sizes="16x16">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${DOCS}/swagger-ui-bundle.js" charset="UTF-8"></script>
  <script src="${DOCS}/swagger-ui-init.js" charset="UTF-8"></script>
</body>
</html>
`;
  }

  /** Starts the UI on the document itself (no second request for it), without the explorer's URL bar. */
  initScript(): string {
    return `window.onload = function () {
  window.ui = SwaggerUIBundle({
    spec: ${this.documentJson},
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
};
`;
  }

  async asset(name: string): Promise<{ type: string; body: Buffer } | null> {
    const type = Object.hasOwn(ASSET_TYPES, name) ? ASSET_TYPES[name] : undefined;
    if (!type) return null;
    return { type, body: await readFile(join(this.assetsFolder, name)) };
  }
}
