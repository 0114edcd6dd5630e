import type { IncomingHttpHeaders } from 'node:http';
import { githubEventName } from './github/github-delivery.js';
import { gitlabEventName } from './gitlab/gitlab-delivery.js';
import { asRecord, text } from './payload-reader.js';
import { Platform } from './platform.js';

/**
 * Platform of a delivery to the generic `POST /webhook` (contract, "Platforms"):
 * A by `X-PlatformA-Event`/`X-GitHub-Event`, B by `X-PlatformB-Event`/`X-Gitlab-Event`,
 * C by the service-hook envelope (string `publisherId` and `eventType` in the body).
 * D is never detected: it has no reliable event header and is served only on
 * `/webhook/platform-d`. A delivery that carries both A's and B's event header is ambiguous and
 * yields null, as does anything unrecognised; the caller answers without running a handler.
 */
export function detectPlatform(headers: IncomingHttpHeaders, body: unknown): Platform | null {
  const githubEvent = githubEventName(headers) !== null;
  const gitlabEvent = gitlabEventName(headers) !== null;
  if (githubEvent && gitlabEvent) return null;
  if (githubEvent) return Platform.GitHub;
  if (gitlabEvent) return Platform.GitLab;
  if (isServiceHookEnvelope(body)) return Platform.AzureDevOps;
  return null;
}

/** Azure DevOps service-hook envelope: `{ publisherId: "tfs", eventType: "workitem.updated", … }`. */
export function isServiceHookEnvelope(body: unknown): boolean {
  const envelope = asRecord(body);
  return envelope !== null && text(envelope['publisherId']) !== null && text(envelope['eventType']) !== null;
}
