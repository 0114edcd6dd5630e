import { type CriteriaParse, type CriteriaSource, NO_CRITERIA } from '../criteria/criteria.js';
import type { Platform } from './platform.js';
import { platformOf } from './platform-registry.js';

/** A ticket's acceptance criteria as its tracker writes them (numbered `c1…`, limited: see criteria.ts). */
export function parseTicketCriteria(platform: Platform, source: CriteriaSource): CriteriaParse {
  return platformOf(platform)?.criteria.parse(source) ?? NO_CRITERIA;
}
