import { describe, expect, it } from 'vitest';
import { GitCommandFailure } from './git-command.js';
import { kindOfFailure, workspaceErrorFrom } from './git-failure.js';

const failure = (stderr: string, timedOut = false) => new GitCommandFailure('push', timedOut ? null : 128, timedOut, stderr);

describe('git failure classification', () => {
  it.each([
    ['credentials', "fatal: could not read Username for 'https://github.com': terminal prompts disabled"],
    ['credentials', "remote: Invalid username or password.\nfatal: Authentication failed for 'https://github.com/acme/x/'"],
    ['credentials', "remote: Permission to acme/x.git denied to bot.\nfatal: unable to access 'https://github.com/acme/x/': The requested URL returned error: 403"],
    ['credentials', 'remote: HTTP Basic: Access denied'],
    ['not-found', 'remote: Repository not found.\nfatal: repository \'https://github.com/acme/x/\' not found'],
    ['not-found', "fatal: couldn't find remote ref refs/heads/main"],
    ['unreachable', "fatal: unable to access 'https://ssl-tools.example/x/': Could not resolve host: ssl-tools.example"],
    ['unreachable', "fatal: unable to access 'https://h/x/': Failed to connect to h port 443: Connection refused"],
    ['unreachable', "fatal: unable to access 'https://h/x/': The requested URL returned error: 502"],
    ['unreachable', 'error: RPC failed; curl 18 transfer closed with outstanding read data remaining'],
    ['diverged', ' ! [rejected]        abc1234 -> service/42 (fetch first)\nerror: failed to push some refs'],
    ['diverged', ' ! [rejected]        abc1234 -> service/42 (non-fast-forward)'],
    ['diverged', ' ! [rejected]        abc1234 -> service/42 (stale info)'],
    ['protected', 'remote: error: GH006: Protected branch update failed for refs/heads/main.\n ! [remote rejected] main -> main (protected branch hook declined)'],
    ['protected', 'remote: GitLab: You are not allowed to push code to protected branches on this project.\n ! [remote rejected] x -> x (pre-receive hook declined)'],
    ['protected', ' ! [remote rejected] x -> x (TF402455: Pushes to this branch are not permitted; you must use a pull request to update this branch.)'],
    ['failed', 'fatal: not a git repository: /data/git-mirrors/x.git'],
    ['failed', "error: object file .git/objects/ab/cdef is empty\nfatal: loose object abcdef (stored in x) is corrupt"],
  ])('reads %s from: %s', (kind, stderr) => {
    expect(kindOfFailure(failure(stderr))).toBe(kind);
  });

  it('reads a timeout as unreachable', () => {
    expect(kindOfFailure(failure('', true))).toBe('unreachable');
  });

  it('does not read numbers inside object names or ports as HTTP statuses', () => {
    expect(kindOfFailure(failure("fatal: bad object 4034040aa\nfatal: unable to access 'http://h:4031/x/': weird"))).toBe('failed');
  });

  it('names the repository and what to do, and scrubs the credential in every form', () => {
    const token = 'ghp_abcdefghijklmnop';
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    const error = workspaceErrorFrom(failure(`fatal: Authentication failed for 'https://x-access-token:${token}@h/x/' (Authorization: Basic ${basic})`), {
      repository: 'shop-web',
      action: 'fetching',
      credential: { username: 'x-access-token', password: token },
    });
    expect(error.kind).toBe('credentials');
    expect(error.message).toMatch(/^repository shop-web: fetching failed \(credentials\): .*auth_secret/);
    expect(error.message).not.toContain(token);
    expect(error.message).not.toContain(basic);
  });
});
