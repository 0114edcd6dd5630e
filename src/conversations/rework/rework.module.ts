import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { PULL_REQUEST_FEEDBACK } from '../pull-request-feedback.js';
import { PullRequestFeedbackService } from './pull-request-feedback.service.js';
import { DEFAULT_REWORK_OPTIONS, REWORK_OPTIONS, type ReworkOptions } from './rework.options.js';
import { ReviewVoteMemory } from './review-vote-memory.service.js';

const PROVIDERS: Provider[] = [PullRequestFeedbackService, { provide: PULL_REQUEST_FEEDBACK, useExisting: PullRequestFeedbackService }, ReviewVoteMemory];
const EXPORTS = [PullRequestFeedbackService, PULL_REQUEST_FEEDBACK, ReviewVoteMemory];

/**
 * Rework on service pull requests (issue 15): what the next attempt reads there
 * (PULL_REQUEST_FEEDBACK), and the review votes already seen (ReviewVoteMemory). Stands on the
 * global configuration, database and store modules.
 */
@Module({ providers: [{ provide: REWORK_OPTIONS, useValue: DEFAULT_REWORK_OPTIONS }, ...PROVIDERS], exports: EXPORTS })
export class ReworkModule {
  static withOptions(options: ReworkOptions): DynamicModule {
    return { module: ReworkModule, providers: [{ provide: REWORK_OPTIONS, useValue: options }, ...PROVIDERS], exports: EXPORTS };
  }
}
