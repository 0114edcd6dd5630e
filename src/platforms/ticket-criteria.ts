import { type CriteriaParse, type CriteriaSource, NO_CRITERIA, type TicketCriteriaFormat } from '../criteria/criteria.js';
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
