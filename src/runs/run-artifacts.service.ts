import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import type { RunArtifactSink } from '../pipelines/pipeline.js';

/** An artifact's name: also its download file name, so only characters safe in a header and on any disk, and no `..`. */
export const ARTIFACT_NAME = /^(?!.*\.\.)[A-Za-z0-9._-]{1,100}$/;
/** Largest artifact kept, in bytes of its UTF-8 content (10 MiB). */
export const MAX_ARTIFACT_BYTES = 10 * 1024 * 1024;
/** `type/subtype` with optional `; name=value` parameters: it is sent back as the Content-Type. */
const TOKEN = "[A-Za-z0-9!#$%&'*+.^_`|~-]+";
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}([ \\t]*;[ \\t]*${TOKEN}=(${TOKEN}|"[^"\\\\\\x00-\\x1f\\x7f]*"))*$`);
const MAX_MEDIA_TYPE_LENGTH = 200;

/** An artifact the service refused to keep: a bad name, media type or size, or a run that does not exist. */
export class RunArtifactRefusedError extends Error {
  override readonly name = 'RunArtifactRefusedError';
}

/** What the list shows of an artifact. */
export interface RunArtifactSummary {
  name: string;
  mediaType: string;
  sizeBytes: number;
  /** ISO 8601 UTC: when this content was saved (a replacement saves anew). */
  createdAt: string;
}

export interface RunArtifact extends RunArtifactSummary {
  /** The UTF-8 bytes saved. */
  content: Buffer;
}

/** Why `read` found nothing: no such run, or the run has no artifact of that name. */
export type RunArtifactRead = { found: true; artifact: RunArtifact } | { found: false; run: boolean };

interface ArtifactRow {
  name: string;
  media_type: string;
  size_bytes: number;
  created_at: Date;
}

const summaryOf = (row: ArtifactRow): RunArtifactSummary =>
  ({ name: row.name, mediaType: row.media_type, sizeBytes: row.size_bytes, createdAt: row.created_at.toISOString() });

/**
 * A run's artifacts (security-scan's SARIF and report): saved by its steps through `sinkFor`,
 * served by the dashboard API, removed with the run (the foreign key cascades on deletion and
 * retention). Saving a name again replaces its content, media type and time.
 */
@Injectable()
export class RunArtifactsService {
  constructor(private readonly db: DatabaseService) {}

  /** Throws RunArtifactRefusedError for a bad name, media type or size, or an unknown run. */
  async save(runId: string, name: string, mediaType: string, content: string): Promise<void> {
    checkName(name);
    checkMediaType(mediaType);
    if (typeof content !== 'string') throw new RunArtifactRefusedError(`artifact ${name}: content must be text`);
    const size = Buffer.byteLength(content, 'utf8');
    if (size > MAX_ARTIFACT_BYTES) {
      throw new RunArtifactRefusedError(`artifact ${name} is ${size} bytes, more than the ${MAX_ARTIFACT_BYTES} bytes (10 MiB) an artifact may have; it was not saved`);
    }
    try {
      await this.db.dataSource.query(
        `INSERT INTO run_artifacts (run_id, name, media_type, content, size_bytes, created_at) VALUES ($1, $2, $3, $4, $5, now())
         ON CONFLICT (run_id, name) DO UPDATE SET media_type = EXCLUDED.media_type, content = EXCLUDED.content,
           size_bytes = EXCLUDED.size_bytes, created_at = EXCLUDED.created_at`,
        [runId, name, mediaType, Buffer.from(content, 'utf8'), size]);
    } catch (error) {
      // 23503: the run is not there (deleted meanwhile, or never was); 22P02: not a run id at all.
      const code = (error as { code?: unknown }).code;
      if (code === '23503' || code === '22P02') throw new RunArtifactRefusedError(`artifact ${name} not saved: no run ${runId}`);
      throw error;
    }
  }

  /** The run's artifacts by name; null when the run does not exist. */
  async list(runId: string): Promise<RunArtifactSummary[] | null> {
    const rows: (ArtifactRow | { name: null })[] = await this.db.dataSource.query(
      `SELECT a.name, a.media_type, a.size_bytes, a.created_at
       FROM runs r LEFT JOIN run_artifacts a ON a.run_id = r.id WHERE r.id = $1 ORDER BY a.name`, [runId]);
    if (rows.length === 0) return null;
    return rows.filter((row): row is ArtifactRow => row.name !== null).map(summaryOf);
  }

  /** One artifact with its content, or why there is none. */
  async read(runId: string, name: string): Promise<RunArtifactRead> {
    if (!ARTIFACT_NAME.test(name)) return { found: false, run: await this.runExists(runId) };
    const rows: (ArtifactRow & { content: Buffer })[] = await this.db.dataSource.query(
      'SELECT name, media_type, size_bytes, created_at, content FROM run_artifacts WHERE run_id = $1 AND name = $2', [runId, name]);
    const row = rows[0];
    if (!row) return { found: false, run: await this.runExists(runId) };
    return { found: true, artifact: { ...summaryOf(row), content: row.content } };
  }

  /** The sink a run's steps save through (StepContext.artifacts). */
  sinkFor(runId: string): RunArtifactSink {
    return { save: (name, mediaType, content) => this.save(runId, name, mediaType, content) };
  }

  private async runExists(runId: string): Promise<boolean> {
    const rows: unknown[] = await this.db.dataSource.query('SELECT 1 FROM runs WHERE id = $1', [runId]);
    return rows.length > 0;
  }
}

function checkName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !ARTIFACT_NAME.test(name)) {
    throw new RunArtifactRefusedError(
      `artifact name ${JSON.stringify(name)} refused: 1–100 characters of A–Z, a–z, 0–9, '.', '_' and '-', without '..'`);
  }
}

function checkMediaType(mediaType: unknown): asserts mediaType is string {
  if (typeof mediaType !== 'string' || mediaType.length > MAX_MEDIA_TYPE_LENGTH || !MEDIA_TYPE.test(mediaType)) {
    throw new RunArtifactRefusedError(
      `media type ${JSON.stringify(mediaType)} refused: it must be type/subtype with optional parameters, such as text/markdown; charset=utf-8`);
  }
}
