import { BUILT_IN_PIPELINES } from '../pipelines/built-in-pipelines.js';
import { isPlatform } from '../platforms/platform.js';

/**
 * Label values are bounded sets: a value outside its set becomes one of these, so nothing a
 * sender controls (or a stale queue entry) can grow the number of series.
 */
export const UNKNOWN_PLATFORM = 'unknown';
export const OTHER_PIPELINE = 'other';

/** A platform (`platform-a` … `platform-d`), or `unknown` (undetected, or not one of the four). */
export function platformLabel(platform: string | null): string {
  return isPlatform(platform) ? platform : UNKNOWN_PLATFORM;
}

/** A built-in or configured pipeline's name, or `other`. */
export function pipelineLabel(name: string, configured: Record<string, unknown>): string {
  return BUILT_IN_PIPELINES.includes(name) || Object.hasOwn(configured, name) ? name : OTHER_PIPELINE;
}
