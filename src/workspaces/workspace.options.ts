import type { TrackerHttpOptions } from '../platforms/http/tracker-http.js';

/** Tunables of the workspaces module (tests shorten the hosts' retry timings). */
export interface WorkspaceOptions {
  /** HTTP behaviour of the pull-request API clients. */
  http?: TrackerHttpOptions;
}

export const WORKSPACE_OPTIONS = Symbol('WORKSPACE_OPTIONS');
export const DEFAULT_WORKSPACE_OPTIONS: WorkspaceOptions = {};
