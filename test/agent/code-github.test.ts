import { Platform } from '../../src/platforms/platform.js';
import { describeCodePipeline } from './support/code-scenarios.js';

// Tickets and repository on the GitHub stand-in; the model over the OpenAI Responses API.
describeCodePipeline(Platform.GitHub);
