import { AdoPullRequestReviews, identityIdOf, type AdoIterationState, type AdoThreadState } from './azure-devops-pull-request-reviews.js';
import { git } from './git-repositories.js';
import { shaOf, type PullRequestCode, type PullRequestCodeStore, type PullRequestSetup } from './pull-request-code.js';
import { json, notFound, type RecordedRequest, type StandInResponse } from './stand-in-server.js';

/**
 * The Git repository of the Azure DevOps stand-in and its pull requests, under
 * `/{org}/{project}/_apis/git/repositories/{repo}` (name or id, any case), with the service's
 * answers:
 * - `GET` the repository: `defaultBranch` as `refs/heads/<name>`, `webUrl`, `project`;
 * - `GET pullrequests?searchCriteria.status=active|completed|abandoned|all` (default active),
 *   `searchCriteria.sourceRefName`, `searchCriteria.targetRefName`, `$top`/`$skip`: `{value,
 *   count}`, each `description` cut to 400 characters as the service does in lists (the single
 *   read has all of it);
 * - `POST pullrequests {sourceRefName, targetRefName, title, description}` → 201. A description
 *   over 4000 characters is 400 `InvalidArgumentValueException`; a source or target ref that is
 *   not an existing branch is 400 TF401398; an active pull request for the same source and target
 *   is 409 TF401179 `GitPullRequestExistsException`. The messages are the service's as reported
 *   by its users; the TF401398 `typeKey` is this stand-in's guess (clients should not rely on it);
 * - `GET`/`PATCH pullrequests/{id}` (`title`, `description`, `status: abandoned|active`), with
 *   `lastMergeSourceCommit`/`lastMergeTargetCommit` from the code behind it, `forkSource` for a
 *   fork's, `createdBy`; iterations, changes, items and threads: azure-devops-pull-request-reviews.ts.
 */

export interface AdoPullRequestState {
  pullRequestId: number;
  title: string;
  description: string;
  sourceRefName: string;
  targetRefName: string;
  status: 'active' | 'completed' | 'abandoned';
  /** The commits and diff behind it (null: none). */
  code: PullRequestCode | null;
  author: string;
  /** The fork's owner, or null when the source branch is in this repository. */
  forkOwner: string | null;
  iterations: AdoIterationState[];
  threads: AdoThreadState[];
}

/** What the pull requests need from the stand-in that holds the repository. */
export interface AdoRepositoryHost {
  readonly organization: string;
  readonly project: string;
  readonly repository: string;
  readonly organizationUrl: string;
  readonly webOrganizationUrl: string;
  readonly defaultBranch: string;
  readonly uniqueName: string;
  readonly code: PullRequestCodeStore;
  branchExists(name: string): boolean;
}

export const ADO_REPOSITORY_ID = '5febef5a-833d-4e14-b9c0-14cb638f91e6';
export const ADO_PROJECT_ID = 'eb6e4656-77fc-42a1-9181-4c6d8e9da5d1';
const LIST_DESCRIPTION_LIMIT = 400;
const DESCRIPTION_LIMIT = 4000;
const HEADS = 'refs/heads/';

export class AdoPullRequests {
  readonly all = new Map<number, AdoPullRequestState>();
  readonly reviews: AdoPullRequestReviews;

  constructor(private readonly host: AdoRepositoryHost) {
    this.reviews = new AdoPullRequestReviews({
      get uniqueName() {
        return host.uniqueName;
      },
      repository: host.repository,
      repositories: () => [...new Set([host.code.repository, ...[...this.all.values()].map((pr) => pr.code?.repository)].filter((r): r is string => !!r))],
    });
  }

  /**
   * A pull request set up by the test (a fork's too). In a mounted repository it gets
   * `refs/pull/N/merge`, a real merge of the head into the base, as the service keeps it (the
   * head itself is kept at `refs/pull/N/head`, which the service does not have).
   */
  open(setup: PullRequestSetup): AdoPullRequestState {
    const id = Math.max(0, ...this.all.keys()) + 1;
    const target = setup.base ?? this.host.defaultBranch;
    const code = this.host.code.codeFor(setup, target, `refs/pull/${id}/head`);
    if (code && !setup.files) mergeRef(code, `refs/pull/${id}/merge`, id);
    const pr: AdoPullRequestState = {
      pullRequestId: id,
      title: setup.title ?? `Pull request ${id}`,
      description: '',
      sourceRefName: `${HEADS}${setup.head}`,
      targetRefName: `${HEADS}${target}`,
      status: 'active',
      code,
      author: setup.author ?? 'ana@acme.example',
      forkOwner: setup.fork?.owner ?? null,
      iterations: [],
      threads: [],
    };
    this.all.set(id, pr);
    return pr;
  }

  get(id: number): AdoPullRequestState {
    const pr = this.all.get(id);
    if (!pr) throw new Error(`no pull request ${id}`);
    return pr;
  }

  /** `rest` is the path after `_apis/git`. */
  route(req: RecordedRequest, rest: string[]): StandInResponse {
    const [collection, name, resource, id, ...more] = rest;
    if (collection?.toLowerCase() !== 'repositories') return notFound({ message: 'The requested resource does not exist.' });
    if (!name || (name.toLowerCase() !== this.host.repository.toLowerCase() && name.toLowerCase() !== ADO_REPOSITORY_ID)) {
      return notFound({
        message: `TF401019: The Git repository with name or identifier ${name} does not exist or you do not have permissions for the operation you are attempting.`,
        typeKey: 'GitRepositoryNotFoundException',
      });
    }
    if (resource === undefined && req.method === 'GET') return json(200, this.renderRepository());
    if (resource?.toLowerCase() === 'items' && id === undefined && req.method === 'GET') return this.reviews.item(req);
    if (resource?.toLowerCase() !== 'pullrequests') return notFound();
    if (id === undefined && req.method === 'GET') return this.list(req);
    if (id === undefined && req.method === 'POST') return this.create(req);
    const pr = this.all.get(Number(id));
    if (!pr) return notFound({ message: `TF401180: The requested pull request was not found.`, typeKey: 'GitPullRequestNotFoundException' });
    if (more.length > 0) return this.reviews.route(req, pr, more);
    if (req.method === 'GET') return json(200, this.render(pr));
    if (req.method === 'PATCH') return this.update(pr, req);
    return notFound();
  }

  private list(req: RecordedRequest): StandInResponse {
    const status = req.query.get('searchCriteria.status') ?? 'active';
    const source = req.query.get('searchCriteria.sourceRefName');
    const target = req.query.get('searchCriteria.targetRefName');
    const skip = Number(req.query.get('$skip') ?? 0) || 0;
    const top = Number(req.query.get('$top') ?? 101) || 101;
    const value = [...this.all.values()]
      .filter((pr) => status === 'all' || pr.status === status)
      .filter((pr) => (source === null || pr.sourceRefName === source) && (target === null || pr.targetRefName === target))
      .sort((a, b) => b.pullRequestId - a.pullRequestId)
      .slice(skip, skip + top)
      .map((pr) => ({ ...this.render(pr), description: pr.description.slice(0, LIST_DESCRIPTION_LIMIT) }));
    return json(200, { value, count: value.length });
  }

  private create(req: RecordedRequest): StandInResponse {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const description = typeof body['description'] === 'string' ? body['description'] : '';
    if (description.length > DESCRIPTION_LIMIT) return tooLong();
    const source = body['sourceRefName'];
    const target = body['targetRefName'];
    if (typeof source !== 'string' || typeof target !== 'string' || !this.isBranch(source) || !this.isBranch(target)) return cannotActivate();
    if (this.activeFor(source, target)) {
      return json(409, {
        $id: '1',
        innerException: null,
        message: `TF401179: An active pull request for the source branch '${source}' and target branch '${target}' already exists.`,
        typeName: 'Microsoft.TeamFoundation.Git.Server.GitPullRequestExistsException, Microsoft.TeamFoundation.Git.Server',
        typeKey: 'GitPullRequestExistsException',
        errorCode: 0,
        eventId: 3000,
      });
    }
    const pr: AdoPullRequestState = {
      pullRequestId: Math.max(0, ...this.all.keys()) + 1,
      title: typeof body['title'] === 'string' ? body['title'] : '',
      description,
      sourceRefName: source,
      targetRefName: target,
      status: 'active',
      code: this.host.code.repository ? { repository: this.host.code.repository, baseRef: target, headRef: source } : null,
      author: this.host.uniqueName,
      forkOwner: null,
      iterations: [],
      threads: [],
    };
    this.all.set(pr.pullRequestId, pr);
    return json(201, this.render(pr));
  }

  private update(pr: AdoPullRequestState, req: RecordedRequest): StandInResponse {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (typeof body['description'] === 'string' && body['description'].length > DESCRIPTION_LIMIT) return tooLong();
    if (typeof body['title'] === 'string') pr.title = body['title'];
    if (typeof body['description'] === 'string') pr.description = body['description'];
    if ((body['status'] === 'abandoned' || body['status'] === 'active') && pr.status !== 'completed') pr.status = body['status'];
    return json(200, this.render(pr));
  }

  private isBranch(ref: string): boolean {
    return ref.startsWith(HEADS) && this.host.branchExists(ref.slice(HEADS.length));
  }

  private activeFor(source: string, target: string): AdoPullRequestState | undefined {
    return [...this.all.values()].find((pr) => pr.status === 'active' && pr.sourceRefName === source && pr.targetRefName === target);
  }

  private renderRepository(): Record<string, unknown> {
    const { organizationUrl, webOrganizationUrl, project, repository } = this.host;
    return {
      id: ADO_REPOSITORY_ID,
      name: repository,
      url: `${organizationUrl}/${ADO_PROJECT_ID}/_apis/git/repositories/${ADO_REPOSITORY_ID}`,
      project: { id: ADO_PROJECT_ID, name: project, state: 'wellFormed' },
      defaultBranch: `${HEADS}${this.host.defaultBranch}`,
      remoteUrl: `${webOrganizationUrl.replace('://', `://${this.host.organization}@`)}/${encodeURIComponent(project)}/_git/${encodeURIComponent(repository)}`,
      webUrl: `${webOrganizationUrl}/${encodeURIComponent(project)}/_git/${encodeURIComponent(repository)}`,
    };
  }

  private render(pr: AdoPullRequestState): Record<string, unknown> {
    const { organizationUrl, project, repository } = this.host;
    return {
      repository: { id: ADO_REPOSITORY_ID, name: repository, url: `${organizationUrl}/${ADO_PROJECT_ID}/_apis/git/repositories/${ADO_REPOSITORY_ID}`, project: { id: ADO_PROJECT_ID, name: project } },
      pullRequestId: pr.pullRequestId,
      codeReviewId: pr.pullRequestId,
      status: pr.status,
      createdBy: { displayName: pr.author.split('@')[0], uniqueName: pr.author, id: identityIdOf(pr.author) },
      lastMergeSourceCommit: { commitId: shaOf(pr.code, 'head') },
      lastMergeTargetCommit: { commitId: shaOf(pr.code, 'base') },
      ...(pr.forkOwner ? { forkSource: { name: pr.sourceRefName, repository: { id: identityIdOf(`${pr.forkOwner}/${repository}`), name: repository } } } : {}),
      creationDate: '2026-01-01T00:00:00Z',
      title: pr.title,
      description: pr.description,
      sourceRefName: pr.sourceRefName,
      targetRefName: pr.targetRefName,
      mergeStatus: 'succeeded',
      isDraft: false,
      url: `${organizationUrl}/${ADO_PROJECT_ID}/_apis/git/repositories/${ADO_REPOSITORY_ID}/pullRequests/${pr.pullRequestId}`,
      supportsIterations: true,
    };
  }
}

/** `ref` := a merge commit of the head into the base (none when they conflict). */
function mergeRef(code: PullRequestCode, ref: string, id: number): void {
  const base = shaOf(code, 'base');
  const head = shaOf(code, 'head');
  let tree: string;
  try {
    tree = git(['merge-tree', '--write-tree', base, head], { cwd: code.repository }).split('\n')[0]!;
  } catch {
    return;
  }
  const merge = git(['commit-tree', tree, '-p', base, '-p', head, '-m', `Merge pull request ${id}`], { cwd: code.repository });
  git(['update-ref', ref, merge], { cwd: code.repository });
}

function tooLong(): StandInResponse {
  return json(400, {
    $id: '1',
    innerException: null,
    message: 'Invalid argument value.\r\nParameter name: A description for a pull request must not be longer than 4000 characters.',
    typeName: 'Microsoft.TeamFoundation.SourceControl.WebServer.InvalidArgumentValueException, Microsoft.TeamFoundation.SourceControl.WebServer',
    typeKey: 'InvalidArgumentValueException',
    errorCode: 0,
    eventId: 0,
  });
}

function cannotActivate(): StandInResponse {
  return json(400, {
    $id: '1',
    innerException: null,
    message: 'TF401398: The pull request cannot be activated because the source and/or the target branch no longer exists, or the requested refs are not branches',
    typeName: 'Microsoft.TeamFoundation.Git.Server.GitPullRequestCannotBeActivated, Microsoft.TeamFoundation.Git.Server',
    typeKey: 'GitPullRequestCannotBeActivated',
    errorCode: 0,
    eventId: 3000,
  });
}
