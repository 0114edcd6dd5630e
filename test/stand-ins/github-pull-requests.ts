import { GitHubPullRequestReviews } from './github-pull-request-reviews.js';
import { changedFiles, shaOf, type PullRequestCode, type PullRequestCodeStore, type PullRequestSetup } from './pull-request-code.js';
import { json, notFound, type RecordedRequest, type StandInResponse } from './stand-in-server.js';

/**
 * The pull requests of the GitHub stand-in's repository (`/repos/{o}/{r}/pulls…`), with GitHub's
 * answers:
 * - `GET pulls?state=open|closed|all&head=owner:branch&base=branch`; a `head` without the
 *   `owner:` part filters nothing, as on GitHub; paginated like the issue list;
 * - `POST pulls {title, head, base, body}` → 201; refusals are 422 `Validation Failed` with
 *   `errors`: a missing title (`missing_field`), a base or head branch that does not exist
 *   (`field: base|head, code: invalid`), an open pull request with the same head and base
 *   (`custom`, "A pull request already exists for acme:service/42."), nothing to merge
 *   (`custom`, "No commits between main and service/42");
 * - `GET pulls/{n}` adds `merged`; `PATCH pulls/{n}` changes `title`, `body`, `state`, `base`;
 * - a merged pull request is `state: closed` with `merged_at` set (the list has no `merged`);
 * - `head.sha`, `base.sha` from the code behind the pull request (all zeros without any),
 *   `head.repo.full_name` the fork's for a fork's pull request, `user.login`, `changed_files`;
 * - files, reviews and review comments: github-pull-request-reviews.ts.
 */

export interface GitHubPullState {
  number: number;
  title: string;
  body: string | null;
  head: string;
  base: string;
  state: 'open' | 'closed';
  mergedAt: string | null;
  /** The commits and diff behind it (null: none, its files list is empty). */
  code: PullRequestCode | null;
  author: string;
  /** `owner/repo` of a fork's head repository; null when the head is in this repository. */
  headRepository: string | null;
  /** The conversation (issue comments) of the pull request. */
  comments: { id: number; body: string; login: string; createdAt?: string }[];
}

/** What the pull requests need from the repository that holds them. */
export interface GitHubRepositoryHost {
  readonly owner: string;
  readonly repo: string;
  readonly url: string;
  readonly webUrl: string;
  readonly login: string;
  readonly code: PullRequestCodeStore;
  branchExists(name: string): boolean;
  hasCommitsBetween(base: string, head: string): boolean;
  /** Issues and pull requests share one number sequence on GitHub. */
  nextNumber(): number;
  paged(req: RecordedRequest, items: unknown[]): StandInResponse;
}

type ValidationError = { resource: 'PullRequest'; code: string; field?: string; message?: string };

export class GitHubPullRequests {
  readonly all = new Map<number, GitHubPullState>();
  readonly reviews: GitHubPullRequestReviews;

  constructor(private readonly host: GitHubRepositoryHost) {
    this.reviews = new GitHubPullRequestReviews({
      get login() {
        return host.login;
      },
      get url() {
        return host.url;
      },
      owner: host.owner,
      repo: host.repo,
      paged: (req, items) => host.paged(req, items),
      headShaOf: (pull) => shaOf(pull.code, 'head'),
    });
  }

  /** A pull request set up by the test (a fork's too), its head kept at `refs/pull/N/head` as GitHub does. */
  open(setup: PullRequestSetup): GitHubPullState {
    const number = this.host.nextNumber();
    const base = setup.base ?? 'main';
    const pull: GitHubPullState = {
      number,
      title: setup.title ?? `Pull request ${number}`,
      body: null,
      head: setup.head,
      base,
      state: 'open',
      mergedAt: null,
      code: this.host.code.codeFor(setup, base, `refs/pull/${number}/head`),
      author: setup.author ?? 'octo-user',
      headRepository: setup.fork ? `${setup.fork.owner}/${this.host.repo}` : null,
      comments: [],
    };
    this.all.set(number, pull);
    return pull;
  }

  get(number: number): GitHubPullState {
    const pull = this.all.get(number);
    if (!pull) throw new Error(`no pull request ${number}`);
    return pull;
  }

  /** `rest` is the path after `/repos/{o}/{r}/pulls`. */
  route(req: RecordedRequest, rest: string[]): StandInResponse {
    if (rest.length === 0 && req.method === 'GET') return this.list(req);
    if (rest.length === 0 && req.method === 'POST') return this.create(req);
    if (rest[0] === 'comments' && rest.length === 2) return this.reviews.routeComment(req, Number(rest[1]));
    const pull = this.all.get(Number(rest[0]));
    if (!pull) return notFound();
    if (rest.length > 1) return this.reviews.route(req, pull, rest.slice(1));
    if (req.method === 'GET') return json(200, this.render(pull, true));
    if (req.method === 'PATCH') return this.update(pull, req);
    return notFound();
  }

  private list(req: RecordedRequest): StandInResponse {
    const state = req.query.get('state') ?? 'open';
    const head = req.query.get('head');
    const base = req.query.get('base');
    const sameHead = (pull: GitHubPullState): boolean => {
      if (head === null || !head.includes(':')) return true;
      const [owner, branch] = splitOnce(head);
      return owner.toLowerCase() === this.host.owner.toLowerCase() && branch === pull.head;
    };
    const matching = [...this.all.values()]
      .filter((p) => state === 'all' || p.state === state)
      .filter((p) => sameHead(p) && (base === null || p.base === base))
      .sort((a, b) => b.number - a.number) // GitHub default: newest first
      .map((p) => this.render(p, false));
    return this.host.paged(req, matching);
  }

  private create(req: RecordedRequest): StandInResponse {
    const body = (req.body ?? {}) as { title?: unknown; head?: unknown; base?: unknown; body?: unknown };
    if (typeof body.title !== 'string' || body.title.trim() === '') return refused({ resource: 'PullRequest', code: 'missing_field', field: 'title' });
    if (typeof body.head !== 'string' || typeof body.base !== 'string') return refused({ resource: 'PullRequest', code: 'missing_field', field: 'head' });
    const [owner, head] = body.head.includes(':') ? splitOnce(body.head) : [this.host.owner, body.head];
    const base = body.base;
    if (!this.host.branchExists(base)) return refused({ resource: 'PullRequest', field: 'base', code: 'invalid' });
    if (owner.toLowerCase() !== this.host.owner.toLowerCase() || !this.host.branchExists(head)) {
      return refused({ resource: 'PullRequest', field: 'head', code: 'invalid' });
    }
    if ([...this.all.values()].some((p) => p.state === 'open' && p.head === head && p.base === base)) {
      return refused({ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${this.host.owner}:${head}.` });
    }
    if (!this.host.hasCommitsBetween(base, head)) {
      return refused({ resource: 'PullRequest', code: 'custom', message: `No commits between ${base} and ${head}` });
    }
    const pull: GitHubPullState = {
      number: this.host.nextNumber(),
      title: body.title,
      body: typeof body.body === 'string' ? body.body : null,
      head,
      base,
      state: 'open',
      mergedAt: null,
      code: this.host.code.repository ? { repository: this.host.code.repository, baseRef: `refs/heads/${base}`, headRef: `refs/heads/${head}` } : null,
      author: this.host.login,
      headRepository: null,
      comments: [],
    };
    this.all.set(pull.number, pull);
    return json(201, this.render(pull, true), { location: this.apiUrlOf(pull) });
  }

  private update(pull: GitHubPullState, req: RecordedRequest): StandInResponse {
    const body = (req.body ?? {}) as { title?: unknown; body?: unknown; state?: unknown; base?: unknown };
    if (typeof body.base === 'string' && !this.host.branchExists(body.base)) return refused({ resource: 'PullRequest', field: 'base', code: 'invalid' });
    if (body.state !== undefined && pull.mergedAt !== null) {
      return refused({ resource: 'PullRequest', code: 'custom', message: 'Cannot change the state of a merged pull request.' });
    }
    if (typeof body.title === 'string') pull.title = body.title;
    if (typeof body.body === 'string' || body.body === null) pull.body = body.body;
    if (body.state === 'open' || body.state === 'closed') pull.state = body.state;
    if (typeof body.base === 'string') pull.base = body.base;
    return json(200, this.render(pull, true));
  }

  private render(pull: GitHubPullState, single: boolean): Record<string, unknown> {
    const own = `${this.host.owner}/${this.host.repo}`;
    const branch = (ref: string, side: 'base' | 'head', fullName: string): Record<string, unknown> => ({
      label: `${fullName.split('/')[0]}:${ref}`,
      ref,
      sha: shaOf(pull.code, side),
      repo: { full_name: fullName },
    });
    return {
      url: this.apiUrlOf(pull),
      id: 500_000 + pull.number,
      number: pull.number,
      html_url: `${this.host.webUrl}/pull/${pull.number}`,
      state: pull.state,
      title: pull.title,
      body: pull.body,
      draft: false,
      user: { login: pull.author, type: 'User' },
      head: branch(pull.head, 'head', pull.headRepository ?? own),
      base: branch(pull.base, 'base', own),
      merged_at: pull.mergedAt,
      closed_at: pull.state === 'closed' ? (pull.mergedAt ?? '2026-01-02T00:00:00Z') : null,
      ...(single ? { merged: pull.mergedAt !== null, changed_files: changedFiles(pull.code).length } : {}),
    };
  }

  private apiUrlOf(pull: GitHubPullState): string {
    return `${this.host.url}/repos/${this.host.owner}/${this.host.repo}/pulls/${pull.number}`;
  }
}

function refused(error: ValidationError): StandInResponse {
  return json(422, { message: 'Validation Failed', errors: [error], documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request', status: '422' });
}

function splitOnce(value: string): [string, string] {
  const at = value.indexOf(':');
  return [value.slice(0, at), value.slice(at + 1)];
}
