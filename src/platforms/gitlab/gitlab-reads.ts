import type { QueryValue, TrackerHttp } from '../http/tracker-http.js';
import { Platform } from '../platform.js';
import { refusal } from '../pull-request-errors.js';

/** What several GitLab clients read alike: every page of a list, and the token's account. */

const PER_PAGE = 100;
const MAX_PAGES = 100;

/** Every page of a list, following `X-Next-Page` (empty on the last page). */
export async function gitLabPages<T>(http: TrackerHttp, path: string, query: Record<string, QueryValue> = {}): Promise<T[]> {
  const items: T[] = [];
  let page: string | null = '1';
  for (let count = 0; page && count < MAX_PAGES; count++) {
    const res: { body: T[]; headers: Headers } = await http.request<T[]>({ method: 'GET', path, query: { ...query, per_page: PER_PAGE, page } });
    if (!Array.isArray(res.body)) break;
    items.push(...res.body);
    page = res.headers.get('x-next-page');
  }
  return items;
}

/** The username of the token's account (`GET /user`). */
export async function gitLabUsername(http: TrackerHttp, repository: string): Promise<string> {
  const res = await http.request<{ username?: string }>({ method: 'GET', path: 'user' });
  if (!res.body?.username) throw refusal(Platform.GitLab, repository, 'GitLab did not say which account the token is (GET /user)', res.status);
  return res.body.username;
}
