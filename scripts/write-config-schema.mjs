// Writes config/service.schema.json from the loader's key tables (src/config/config-shape.ts) and
// the comments of config/service.example.yml. Run through `npm run schema`, which compiles first;
// test/config/config-schema.test.ts fails while the committed file differs from a fresh one.
import { readFileSync, writeFileSync } from 'node:fs';
import { CONFIG_EXAMPLE_FILE, CONFIG_SCHEMA_FILE, configJsonSchemaText } from '../dist/config/config-json-schema.js';

const root = new URL('../', import.meta.url);
const text = configJsonSchemaText(readFileSync(new URL(CONFIG_EXAMPLE_FILE, root), 'utf8'));
writeFileSync(new URL(CONFIG_SCHEMA_FILE, root), text);
console.log(`wrote ${CONFIG_SCHEMA_FILE} (${text.length} bytes)`);
