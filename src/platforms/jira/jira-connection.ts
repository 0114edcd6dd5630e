import { basicAuth, bearerAuth, TrackerHttp, type TrackerHttpOptions } from '../http/tracker-http.js';
import { getConnection, type PlatformConnection } from '../platform-connection.js';
import { Platform } from '../platform.js';

/** Jira: `GET /rest/api/2/myself` with the trigger's credentials (`user:api-token` Basic, else a Data Center PAT). */
export function jiraConnection(siteUrl: string, credentials: string, http: TrackerHttpOptions): PlatformConnection {
  const sep = credentials.indexOf(':');
  const auth = sep > 0 ? basicAuth(credentials.slice(0, sep), credentials.slice(sep + 1)) : bearerAuth(credentials);
  return getConnection(new TrackerHttp(Platform.Jira, siteUrl, auth, http), 'rest/api/2/myself');
}
