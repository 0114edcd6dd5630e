import { Platform } from '../../src/platforms/platform.js';
import { describeCodePipeline } from './support/code-scenarios.js';

// Work items and repository on the Azure DevOps stand-in; the model over OpenAI-compatible Chat Completions.
describeCodePipeline(Platform.AzureDevOps);
