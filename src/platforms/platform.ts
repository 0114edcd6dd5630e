/** The four external platforms. The spec calls them A–D; the contract pins them to real products. */
export const Platform = {
  GitHub: 'platform-a',
  GitLab: 'platform-b',
  AzureDevOps: 'platform-c',
  Jira: 'platform-d',
} as const;
export type Platform = (typeof Platform)[keyof typeof Platform];

/**
 * The platforms the service serves, built-ins first. A live list: `platform-registry.ts` adds a
 * registered platform's id to it, so a check made at call time sees it.
 */
export const ALL_PLATFORMS: readonly Platform[] = [...Object.values(Platform)];

export function isPlatform(value: unknown): value is Platform {
  return typeof value === 'string' && (ALL_PLATFORMS as readonly string[]).includes(value);
}

/** Config key of a project's trigger block for a platform: `platform_a_trigger` … */
export function triggerKeyOf(platform: Platform): `platform_${'a' | 'b' | 'c' | 'd'}_trigger` {
  // The key follows the id's last letter, so a registered `platform-e` reads `platform_e_trigger`.
  return `platform_${platform.slice(-1) as 'a' | 'b' | 'c' | 'd'}_trigger`;
}
