import { GITHUB_TRAITS } from './github/github-traits.js';
import { platformOf } from './platform-registry.js';
import type { PlatformTraits } from './platform-traits.js';

/** The traits of `platform` (GitHub's for a name the service does not know, as the callers did before). */
export function traitsOf(platform: string): PlatformTraits {
  return platformOf(platform)?.traits ?? GITHUB_TRAITS;
}
