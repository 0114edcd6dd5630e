import type { GitHttpBackend, GitHttpCredential } from './git-http-backend.js';
import { PullRequestCodeStore } from './pull-request-code.js';
import { StandInServer, type RecordedRequest, type StandInResponse } from './stand-in-server.js';

/** One answer a route gave (faults and the auth gate answer before routing and are not here). */
export interface RouteAnswer {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

/**
 * A stand-in that also hosts one repository's code (GitHub, GitLab, Azure DevOps): a default
 * branch and the branches that exist, which pull request creation checks as the host does. It
 * keeps the answers it gave, so a test can show that a client went through a refusal (a
 * duplicate pull request) rather than around it.
 *
 * The code behind pull requests (their commits and diffs, for the review endpoints) comes from
 * the repository mounted with `mountGit`, or from files a test gives `openPullRequest`
 * (pull-request-code.ts).
 */
export abstract class CodeHostStandIn extends StandInServer {
  readonly answers: RouteAnswer[] = [];
  /** Answered as the repository's default branch (it exists unless `branchExists` says otherwise). */
  defaultBranch = 'main';
  readonly branches = new Set<string>();
  /**
   * Whether a branch exists on the host: by default the default branch and every `addBranch`.
   * A test backed by a real git repository replaces it (e.g. with a lookup of `refs/heads/<name>`).
   */
  branchExists: (name: string) => boolean = (name) => name === this.defaultBranch || this.branches.has(name);

  /** The git repository behind the pull requests' diffs. */
  readonly code = new PullRequestCodeStore();

  override mountGit(pathPrefix: string, options: { repository: string; credential: GitHttpCredential }): GitHttpBackend {
    this.code.repository = options.repository;
    return super.mountGit(pathPrefix, options);
  }

  override async stop(): Promise<void> {
    await super.stop();
    this.code.cleanup();
  }

  addBranch(name: string): this {
    this.branches.add(name);
    return this;
  }

  protected route(req: RecordedRequest, segments: string[]): StandInResponse {
    const answer = this.serve(req, segments);
    this.answers.push({ method: req.method, path: req.path, status: answer.status, body: answer.body });
    return answer;
  }

  /** The platform's endpoints (what `route` is on the other stand-ins). */
  protected abstract serve(req: RecordedRequest, segments: string[]): StandInResponse;
}
