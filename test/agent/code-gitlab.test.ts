import { Platform } from '../../src/platforms/platform.js';
import { describeCodePipeline } from './support/code-scenarios.js';

// Tickets and repository on the GitLab stand-in; the model over the Anthropic Messages API.
describeCodePipeline(Platform.GitLab);
