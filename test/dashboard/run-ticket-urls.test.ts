import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootRunApp } from '../runs/support/run-test-app.js';
import { type RunTestSetup, createRunTestSetup } from '../runs/support/run-test-setup.js';

let setup: RunTestSetup;
let app: NestFastifyApplication;

const PROJECTS = {
  gh: { tracker: 'platform-a', repos: [{ name: 'shop-web', platform: 'platform-a', url: 'https://github.com/acme/shop-web.git' }] },
  gl: { tracker: 'platform-b', repos: [{ name: 'api', platform: 'platform-b', url: 'https://gitlab.example/group/sub/api' }] },
  ado: { tracker: 'platform-c', platform_c_trigger: { organization_url: 'https://dev.azure.com/fabrikam', team_project: 'Fabrikam Cloud' } },
  jira: { tracker: 'platform-d', platform_d_trigger: { site_url: 'https://acme.atlassian.net', project_key: 'BILL' } },
};

async function seed(project: string, platform: string, ticket: string | null): Promise<string> {
  const id = randomUUID();
  await setup.db.query(
    `INSERT INTO runs (id, platform, project, ticket, pipeline, state, created_at) VALUES ($1, $2, $3, $4, 'code', 'queued', now())`,
    [id, platform, project, ticket],
  );
  return id;
}

beforeAll(async () => {
  setup = await createRunTestSetup({ projects: PROJECTS });
  app = await bootRunApp(setup.env);
});

afterAll(async () => {
  await app?.close();
  await setup?.cleanup();
});

describe('the Run resource\'s ticketUrl', () => {
  it('links the ticket on the project\'s tracker, in one run and in the list', async () => {
    const cases: [string, string, string | null, string | null][] = [
      ['gh', 'platform-a', '12', 'https://github.com/acme/shop-web/issues/12'],
      ['gl', 'platform-b', '7', 'https://gitlab.example/group/sub/api/-/issues/7'],
      ['ado', 'platform-c', '42', 'https://dev.azure.com/fabrikam/Fabrikam%20Cloud/_workitems/edit/42'],
      ['jira', 'platform-d', 'BILL-12', 'https://acme.atlassian.net/browse/BILL-12'],
      ['gh', 'platform-a', null, null],
      ['gone', 'platform-a', '3', null],
    ];
    for (const [project, platform, ticket, url] of cases) {
      const id = await seed(project, platform, ticket);
      const one = await app.inject({ method: 'GET', url: `/api/runs/${id}` });
      expect(one.json().ticketUrl, `${project} ${ticket}`).toBe(url);
      const list = await app.inject({ method: 'GET', url: `/api/runs?project=${project}&limit=1` });
      expect(list.json().items[0]).toMatchObject({ id, ticketUrl: url });
    }
  });
});
