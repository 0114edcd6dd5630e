import type { TrackerHttpOptions } from '../../platforms/http/tracker-http.js';

/** Tunables of the rework module (tests shorten the hosts' retry timings). */
export interface ReworkOptions {
  /** HTTP behaviour of the code-host clients. */
  http?: TrackerHttpOptions;
}

export const REWORK_OPTIONS = Symbol('REWORK_OPTIONS');
export const DEFAULT_REWORK_OPTIONS: ReworkOptions = {};
