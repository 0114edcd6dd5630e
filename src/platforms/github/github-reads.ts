import { nextLink, type QueryValue, type TrackerHttp } from '../http/tracker-http.js';
import { Platform } from '../platform.js';
import { refusal } from '../pull-request-errors.js';
import { API_HEADERS } from './github-api.js';

/** What several GitHub clients read alike: every page of a list, and the token's account. */

/** A page's size, and a bound on any paging. */
const PER_PAGE = 100;
const MAX_PAGES = 100;

/** Every page of a list, following `Link: rel="next"`. */
export async function gitHubPages<T>(http: TrackerHttp, path: string, query: Record<string, QueryValue> = {}): Promise<T[]> {
  const items: T[] = [];
  let next: string | null = path;
  let first = true;
  for (let page = 0; next !== null && page < MAX_PAGES; page++) {
    const res: { body: T[]; headers: Headers } = await http.request<T[]>({ method: 'GET', path: next, query: first ? { per_page: PER_PAGE, ...query } : undefined, headers: API_HEADERS });
    if (!Array.isArray(res.body)) break;
    items.push(...res.body);
    next = nextLink(res.headers);
    first = false;
  }
  return items;
}

/**
 * The login of the token's account (`GET /user`). A personal or machine-user token can read it;
 * a GitHub App installation token cannot, and the call fails saying so.
 */
export async function gitHubLogin(http: TrackerHttp, repository: string): Promise<string> {
  const res = await http.request<{ login?: string }>({ method: 'GET', path: 'user', headers: API_HEADERS });
  if (!res.body?.login) throw refusal(Platform.GitHub, repository, 'GitHub did not say which account the token is (GET /user)', res.status);
  return res.body.login;
}
