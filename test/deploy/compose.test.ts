// deploy/compose.yaml is the one-machine deployment (docs/deployment.md). `docker-compose config`
// is what reads it on `up`: these tests run it (Debian's docker-compose 1.29, which also proves
// the file stays in the subset both it and Compose v2 accept) on a copy of deploy/ with a .env
// made from .env.example, and check the resolved model: the services, the order they start in,
// the health checks, and the server wired to the PostgreSQL and Redis beside it.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { readEnvironment } from '../../src/config/environment.js';
import { loadServiceConfig } from '../../src/config/load-service-config.js';

const run = promisify(execFile);
const compose = (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'docker-compose')).find((path) => existsSync(path));
const skip = compose ? null : 'docker-compose is not on PATH (Debian: apt-get install docker-compose)';

/** Variables compose.yaml reads itself; every other line of .env.example is a server variable. */
const COMPOSE_ONLY = ['POSTGRES_PASSWORD', 'PIPELINE_SERVICE_PORT'];

function exampleVariables(): string[] {
  return readFileSync('deploy/.env.example', 'utf8').split('\n').map((line) => /^#?\s*([A-Z][A-Z0-9_]*)=/.exec(line)?.[1]).filter((name): name is string => !!name);
}

describe('deploy/.env.example', () => {
  it('documents only variables the server reads (docs/configuration.md) or compose.yaml uses', () => {
    const configuration = readFileSync('docs/configuration.md', 'utf8');
    const composeFile = readFileSync('deploy/compose.yaml', 'utf8');
    const undocumented = exampleVariables().filter((name) =>
      COMPOSE_ONLY.includes(name) ? !composeFile.includes(`\${${name}`) : !configuration.includes(`\`${name}\``) && !readFileSync('config/service.example.yml', 'utf8').includes(`\${${name}}`));
    expect(undocumented).toEqual([]);
  });
});

describe("deploy/config/service.yml (compose's bootstrap file)", () => {
  it('loads without a finding', () => {
    const { findings } = loadServiceConfig(readEnvironment({ SERVICE_CONFIG: 'deploy/config/service.yml' }));
    expect(findings).toEqual([]);
  });
});

describe.skipIf(skip !== null)(`docker-compose config of deploy/compose.yaml${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let root: string;
  let model: any;

  /** `docker-compose config` in a copy of deploy/ (so a real deploy/.env is neither read nor written) with the given .env. */
  async function config(env: string): Promise<{ stdout: string; stderr: string }> {
    await writeFile(join(root, 'deploy', '.env'), env);
    return run(compose!, ['-f', join(root, 'deploy', 'compose.yaml'), 'config'], { timeout: 60_000, env: { PATH: process.env.PATH } });
  }

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'deploy-compose-'));
    await cp('deploy', join(root, 'deploy'), { recursive: true, filter: (source) => !source.endsWith(`${join('deploy', '.env')}`) });
    const example = await readFile('deploy/.env.example', 'utf8');
    const { stdout } = await config(example.replace(/^POSTGRES_PASSWORD=$/m, 'POSTGRES_PASSWORD=from-the-env-file'));
    model = parseYaml(stdout);
  });

  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('has the server, PostgreSQL, Redis and the one-shot migration, with named volumes', () => {
    expect(Object.keys(model.services).sort()).toEqual(['migrate', 'postgres', 'redis', 'server']);
    expect(Object.keys(model.volumes).sort()).toEqual(['pipeline-data', 'postgres-data', 'redis-data']);
    expect(model.services.postgres.volumes).toEqual(['postgres-data:/var/lib/postgresql/data:rw']);
    expect(model.services.redis.volumes).toEqual(['redis-data:/data:rw']);
  });

  it('starts in order: PostgreSQL and Redis healthy, then the migration to completion, then the server', () => {
    expect(model.services.migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(model.services.server.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
      migrate: { condition: 'service_completed_successfully' },
    });
    expect(model.services.postgres.depends_on).toBeUndefined();
    expect(model.services.redis.depends_on).toBeUndefined();
  });

  it('checks health: pg_isready, redis-cli ping, and the server\'s /health through node\'s fetch as the image does', () => {
    expect(model.services.postgres.healthcheck.test).toEqual(['CMD', 'pg_isready', '-U', 'pipeline', '-d', 'pipeline']);
    expect(model.services.redis.healthcheck.test).toEqual(['CMD', 'redis-cli', 'ping']);
    const [form, binary, flag, script] = model.services.server.healthcheck.test;
    expect([form, binary, flag]).toEqual(['CMD', 'node', '-e']);
    expect(script).toContain("fetch('http://127.0.0.1:8081/health'");
    // The same probe as the Dockerfile's HEALTHCHECK (there the port comes from PORT).
    expect(readFileSync('Dockerfile', 'utf8')).toContain(script.replace("'http://127.0.0.1:8081/health'", "'http://127.0.0.1:' + (process.env.PORT || 8081) + '/health'"));
    // The one-shot migration never starts the server the image's own check would probe.
    expect(model.services.migrate.healthcheck).toEqual({ test: ['NONE'] });
  });

  it('runs the server and the migration from the one image built from the Dockerfile, against this PostgreSQL and this Redis', () => {
    for (const name of ['server', 'migrate']) {
      const service = model.services[name];
      expect(service.image, name).toBe('pipeline-service');
      expect(service.build, name).toEqual({ context: root, dockerfile: 'Dockerfile' });
      expect(service.environment.DATABASE_URL, name).toBe('postgres://pipeline:from-the-env-file@postgres:5432/pipeline');
      expect(service.environment.KVSTORE_URL, name).toBe('redis://redis:6379/0');
      expect(service.environment.SERVICE_CONFIG, name).toBe('/app/config/service.yml');
      expect(service.volumes, name).toEqual([`${join(root, 'deploy', 'config')}:/app/config:ro`, 'pipeline-data:/var/lib/pipeline-service:rw']);
    }
    expect(model.services.postgres.environment.POSTGRES_PASSWORD).toBe('from-the-env-file');
    expect(model.services.migrate.command).toEqual(['node', 'dist/cli/main.js', 'migrate']);
    expect(model.services.migrate.restart).toBe('no');
    expect(model.services.server.command).toBeUndefined(); // the image's CMD: node --max-semi-space-size=4 dist/main.js
    expect(model.services.server.ports).toEqual([{ published: 8081, target: 8081 }]);
  });

  it('passes every variable of the .env file to the server', () => {
    const environment = model.services.server.environment;
    const missing = exampleVariables().filter((name) => !(name in environment) && !readFileSync('deploy/.env.example', 'utf8').includes(`# ${name}=`));
    expect(missing).toEqual([]);
  });

  it('refuses to run without a database password, naming the variable', async () => {
    const example = await readFile('deploy/.env.example', 'utf8');
    const refused = await config(example).then(() => null, (error: { stderr: string }) => error.stderr);
    expect(refused).toContain('set POSTGRES_PASSWORD in deploy/.env');
  });
});
