import { ApiError } from '../../api/client';
import { TAB_BUILD } from '../../api/settings';
import type { Session } from '../../auth/session';

/**
 * Downloads and uploads that are not JSON (the export's YAML, the archive's gzip): the API client
 * speaks JSON, and a plain link cannot carry the bearer token, so these go through fetch here with
 * the same headers, and save the answer under the name the server gives.
 */
async function headers(session: Session, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const h: Record<string, string> = { 'x-dashboard-build': TAB_BUILD, ...extra };
  const token = await session.token();
  if (token) h['authorization'] = `Bearer ${token}`;
  return h;
}

async function failure(response: Response, path: string): Promise<ApiError> {
  const text = await response.text();
  let body: Record<string, unknown> | null = null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    body = text ? { message: text.slice(0, 200) } : null;
  }
  return new ApiError(response.status, body, path);
}

export function fileNameOf(disposition: string | null, fallback: string): string {
  const match = /filename="?([^";]+)"?/i.exec(disposition ?? '');
  return match?.[1] ?? fallback;
}

/** Fetches and hands the browser the file. Returns its name. */
export async function download(session: Session, path: string, fallbackName: string): Promise<string> {
  const response = await fetch(path, { headers: await headers(session) });
  if (!response.ok) throw await failure(response, path);
  const blob = await response.blob();
  const name = fileNameOf(response.headers.get('content-disposition'), fallbackName);
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return name;
}

export async function upload<T>(session: Session, path: string, body: Blob, contentType: string): Promise<T> {
  const response = await fetch(path, { method: 'POST', headers: await headers(session, { 'content-type': contentType, accept: 'application/json' }), body });
  if (!response.ok) throw await failure(response, path);
  return (await response.json()) as T;
}

/** The import's content type from the file's name (YAML unless it says .json). */
export function importContentType(fileName: string): string {
  return /\.json$/i.test(fileName) ? 'application/json' : 'application/yaml';
}
