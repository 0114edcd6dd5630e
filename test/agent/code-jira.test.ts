import { Platform } from '../../src/platforms/platform.js';
import { describeCodePipeline } from './support/code-scenarios.js';

// Issues on the Jira stand-in, the repository on the GitHub stand-in; the model over Azure OpenAI (Responses).
describeCodePipeline(Platform.Jira);
