/**
 * A restore refused before anything was applied: 409 (the target is not empty), 413 (too large)
 * or 422 (not an archive this installation can take, or damaged). The body is `{error, code, …details}`.
 */
export class ArchiveRefused extends Error {
  constructor(
    readonly status: 409 | 413 | 422,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  get body(): Record<string, unknown> {
    return { error: this.message, code: this.code, ...this.details };
  }
}

/** 422: the archive itself is the problem. */
export function unusableArchive(code: string, message: string, details: Record<string, unknown> = {}): ArchiveRefused {
  return new ArchiveRefused(422, code, message, details);
}
