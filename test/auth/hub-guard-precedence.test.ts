import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Permission } from '../../src/auth/permission.js';
import { Public } from '../../src/auth/public.decorator.js';
import { RequirePermissions } from '../../src/auth/require-permissions.decorator.js';
import { HubGuard } from '../../src/hub/hub.guard.js';
import { OidcAuthority } from '../stand-ins/oidc-authority.js';
import { type AuthBench, bootApp, createAuthBench } from './support/auth-harness.js';

/** A gateway-shaped class: public as a whole, one method naming its permission. */
@Public()
class MixedGateway {
  @RequirePermissions(Permission.RunsWatch)
  guarded(): void {}

  open(): void {}
}

/**
 * Handler-level `@RequirePermissions` wins over a class-level `@Public()` in the hub guard (as
 * for HTTP). The real guard from an enforcing app; the client is a token-less socket-shaped value.
 */
describe('hub guard: handler permissions beat class @Public', () => {
  let idp: OidcAuthority;
  let bench: AuthBench;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    idp = await OidcAuthority.start();
    bench = await createAuthBench('auth_hub_prec');
    app = await bootApp(bench.environment({ SERVICE_AUTH_AUTHORITY: idp.authority, SERVICE_AUTH_AUDIENCE: idp.defaultAudience, SERVICE_AUTH_ENFORCE: 'true' }));
  });
  afterAll(async () => {
    await app?.close();
    await bench?.cleanup();
    await idp?.stop();
  });

  const run = (handler: () => void): Promise<{ allowed: boolean; emitted: unknown[] }> => {
    const emitted: unknown[] = [];
    const socket = {
      handshake: { auth: {}, headers: {} }, data: { principal: null, expiresAt: null }, rooms: new Set<string>(), connected: false,
      emit: (_event: string, body: unknown) => emitted.push(body), disconnect: () => undefined,
    };
    const context = new ExecutionContextHost([socket, {}, 'method'], MixedGateway, handler);
    context.setType('ws');
    return Promise.resolve(app.get(HubGuard).canActivate(context)).then((allowed) => ({ allowed, emitted }));
  };

  it('the method with @RequirePermissions is checked (a token-less client is refused)', async () => {
    expect((await run(MixedGateway.prototype.guarded)).allowed).toBe(false);
  });

  it('a method without its own declaration takes the class @Public', async () => {
    expect(await run(MixedGateway.prototype.open)).toEqual({ allowed: true, emitted: [] });
  });
});
