import { TAB_BUILD } from '../../api/settings';
import { ApiError } from '../../api/client';
import type { Session } from '../../auth/session';

/**
 * An artifact's content as text. The API client parses JSON, and an artifact is any text (a
 * report, a SARIF log), so this reads the body itself with the same token and build header.
 */
export async function fetchArtifact(session: Session, runId: string, name: string): Promise<Blob> {
  const path = `/api/runs/${encodeURIComponent(runId)}/artifacts/${encodeURIComponent(name)}`;
  const headers: Record<string, string> = { 'x-dashboard-build': TAB_BUILD };
  const token = await session.token();
  if (token) headers['authorization'] = `Bearer ${token}`;
  const response = await fetch(path, { headers });
  if (!response.ok) {
    let body: Record<string, unknown> | null = null;
    try { body = (await response.json()) as Record<string, unknown>; } catch { body = null; }
    throw new ApiError(response.status, body, path);
  }
  return response.blob();
}
