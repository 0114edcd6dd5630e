import { Platform } from '../../src/platforms/platform.js';
import { describeReviewPipeline } from './support/review-scenarios.js';

// The merge request on the GitLab stand-in; the model over the Anthropic Messages API.
describeReviewPipeline(Platform.GitLab);
