import { Document } from 'yaml';
import type { AccessRecords } from '../access/access-records.js';
import type { SecretReference } from './configuration-exchange.js';

/**
 * The configuration document `GET /api/config/export` answers and `POST /api/config/import`
 * takes: one YAML document, versioned, carrying references and never values.
 */
export const CONFIG_DOCUMENT_FORMAT = 'pipeline-service-config';
export const CONFIG_DOCUMENT_VERSION = 1;

/** The content types an import accepts besides application/json (the document is YAML; JSON is YAML too). */
export const YAML_CONTENT_TYPES = ['application/yaml', 'text/yaml', 'application/x-yaml'] as const;

/** An import body larger than this is refused (413) before it is read. */
export const CONFIG_IMPORT_BODY_LIMIT = 1024 * 1024;

export interface ConfigDocument {
  format: typeof CONFIG_DOCUMENT_FORMAT;
  version: typeof CONFIG_DOCUMENT_VERSION;
  /** ISO 8601 UTC. */
  exported_at: string;
  /** The exporter, as a change is attributed (the name-claim value, or `dashboard`). */
  exported_by: string;
  /** The effective configuration document less `auth` and `secrets` (see configuration-exchange.ts). */
  configuration: Record<string, unknown>;
  access: AccessRecords;
  secrets: SecretReference[];
}

/** One reason an import is refused, at a dotted path into the document (`configuration.queue.max_parallel_runs`, `access.people[2]`). */
export interface ImportProblem {
  path: string;
  error: string;
}

const HEADER = ` ${CONFIG_DOCUMENT_FORMAT} version ${CONFIG_DOCUMENT_VERSION}: configuration, access records and the names of the secrets
 they reference. No secret value is in here: give the target installation each name listed under
 secrets (a stored secret, its bootstrap file's secrets block or its environment), before importing
 or after (until then each reference counts as unconfigured; the import's answer lists them).`;

export function renderConfigDocument(document: ConfigDocument): string {
  // No anchors: a block repeated in two places is written out twice, as an operator would read it.
  const yaml = new Document(document, { aliasDuplicateObjects: false });
  yaml.commentBefore = HEADER;
  return yaml.toString({ lineWidth: 0 });
}

/** `Content-Disposition` for a document exported at `exportedAt`. */
export function exportFileName(exportedAt: string): string {
  return `pipeline-service-config-${exportedAt.replace(/\.\d+Z$/, 'Z').replaceAll(':', '-')}.yaml`;
}
