/**
 * Where the schema is shipped and what `GET /api/config/schema` answers, relative to the package
 * root. Apart from the generator, so that serving the file does not load it at boot.
 */
export const CONFIG_SCHEMA_FILE = 'config/service.schema.json';
