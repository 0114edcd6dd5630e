import { registerPlatform } from '../../../src/platforms/platform-registry.js';
import { FIFTH_PLATFORM } from './fifth-platform.js';

/**
 * Imported first by the test: the configuration's shape (its `platform_e_trigger` key) is built
 * from the registry when the server's modules load, so the platform registers before them.
 */
export const unregisterFifthPlatform = registerPlatform(FIFTH_PLATFORM);
