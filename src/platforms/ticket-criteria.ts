import { type CriteriaParse, type CriteriaSource, NO_CRITERIA, type RenderedCriteria, type TicketCriteriaFormat } from '../criteria/criteria.js';
import { azureDevOpsCriteria } from './azure-devops/azure-devops-criteria.js';
import { githubCriteria } from './github/github-criteria.js';
import { gitlabCriteria } from './gitlab/gitlab-criteria.js';
import { jiraCriteria } from './jira/jira-criteria.js';
import { Platform } from './platform.js';

/** Each tracker's criteria form (its folder's `*-criteria.ts`), by platform. */
const FORMATS: Readonly<Record<Platform, TicketCriteriaFormat>> = {
  [Platform.GitHub]: githubCriteria,
  [Platform.GitLab]: gitlabCriteria,
  [Platform.AzureDevOps]: azureDevOpsCriteria,
  [Platform.Jira]: jiraCriteria,
};

/** A ticket's acceptance criteria as its tracker writes them (numbered `c1…`, limited: see criteria.ts). */
export function parseTicketCriteria(platform: Platform, source: CriteriaSource): CriteriaParse {
  return FORMATS[platform]?.parse(source) ?? NO_CRITERIA;
}

/**
 * Criteria in the form the tracker keeps them in a new ticket, so that `parseTicketCriteria`
 * reads them back as given (the design dialogue files its drafts with this).
 */
export function renderTicketCriteria(platform: Platform, texts: readonly string[]): RenderedCriteria {
  return FORMATS[platform].render(texts);
}
