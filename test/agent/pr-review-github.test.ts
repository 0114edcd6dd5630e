import { Platform } from '../../src/platforms/platform.js';
import { describeReviewPipeline } from './support/review-scenarios.js';

// The pull request on the GitHub stand-in; the model over the OpenAI Responses API.
describeReviewPipeline(Platform.GitHub);
