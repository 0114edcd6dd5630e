import { Platform } from '../../src/platforms/platform.js';
import { describeInit } from './support/init-scenarios.js';

describeInit(Platform.GitHub);
