import { Platform } from '../../src/platforms/platform.js';
import { describeReviewPipeline } from './support/review-scenarios.js';

// The pull request on the Azure DevOps stand-in; the model over OpenAI-compatible Chat Completions.
describeReviewPipeline(Platform.AzureDevOps);
