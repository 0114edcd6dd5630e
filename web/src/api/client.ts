import type { Session } from '../auth/session';
import { TAB_BUILD } from './settings';
import type { TokenRefusal } from './types';

/** An API answer other than 2xx, with what the server said. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown> | null,
    readonly path: string,
  ) {
    super(messageOf(status, body, path));
  }

  /** The permissions a 403 names (spec: the body names every missing permission). */
  get missingPermissions(): string[] {
    const missing = this.body?.['missingPermissions'];
    return Array.isArray(missing) ? missing.map(String) : [];
  }

  get refusal(): TokenRefusal | null {
    if (this.status !== 401 || !this.body) return null;
    return { reason: String(this.body['reason'] ?? 'unknown'), message: String(this.body['message'] ?? ''), detail: (this.body['detail'] as TokenRefusal['detail']) ?? null };
  }
}

function messageOf(status: number, body: Record<string, unknown> | null, path: string): string {
  const said = body?.['message'] ?? body?.['error'];
  return `${path} answered ${status}${typeof said === 'string' && said ? `: ${said}` : ''}`;
}

export interface ApiClientHooks {
  /** The server names another build than this tab's. */
  onBuildMismatch(serverBuild: string): void;
  /** A token the server refused: sign in again, or show why. */
  onUnauthorized(error: ApiError): void;
}

export interface ApiClient {
  get<T>(path: string, init?: { signal?: AbortSignal }): Promise<T>;
  send<T>(method: 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T>;
}

export function createApiClient(session: Session, hooks: ApiClientHooks, fetchImpl: typeof fetch = (...a) => fetch(...a)): ApiClient {
  async function call<T>(method: string, path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', 'x-dashboard-build': TAB_BUILD };
    const token = await session.token();
    if (token) headers['authorization'] = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetchImpl(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
    const serverBuild = response.headers.get('x-dashboard-build');
    if (serverBuild && serverBuild !== TAB_BUILD) hooks.onBuildMismatch(serverBuild);
    const text = response.status === 204 ? '' : await response.text();
    const parsed = text ? safeJson(text) : null;
    if (!response.ok) {
      const error = new ApiError(response.status, parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : null, path);
      if (response.status === 401) hooks.onUnauthorized(error);
      throw error;
    }
    return parsed as T;
  }
  return {
    get: (path, init) => call('GET', path, undefined, init?.signal),
    send: (method, path, body) => call(method, path, body),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { message: text.slice(0, 200) };
  }
}
