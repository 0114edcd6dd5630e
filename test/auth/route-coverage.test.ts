import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryModule, DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { MESSAGE_METADATA } from '@nestjs/websockets/constants.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessDeclaration } from '../../src/auth/access-declaration.js';
import { readEnvironment } from '../../src/config/environment.js';
import { AppModule } from '../../src/app.module.js';

/** Handlers without a token (spec: health, findings and webhooks; metrics like health; the contract's dashboard settings), listed one by one. */
const PUBLIC_HANDLERS = [
  // Chat platforms prove their requests their own way (Slack's signing secret, the Bot Framework's and Google's tokens).
  'ChatController.receive',
  // The JSON Schema of service.yml: key documentation only, no value of this installation; editors fetch it without a token.
  'ConfigSchemaController.schemaDocument',
  // The contract's GET /api/dashboard/settings: how the app signs in, needed before anyone has.
  'DashboardSettingsController.settings',
  'FindingsController.list',
  'HealthController.health',
  'HealthController.ready',
  'MetricsController.metrics',
  'WebhookController.detect',
  'WebhookController.platform',
];

interface Handler {
  where: string;
  declared: 'public' | 'permissions' | 'none';
  permissions: string[];
}

/** Every HTTP route and hub method of the real application, with what it declares. */
function handlersOf(app: NestFastifyApplication): Handler[] {
  const discovery = app.get(DiscoveryService);
  const scanner = app.get(MetadataScanner);
  const reflector = app.get(Reflector);
  const out: Handler[] = [];
  for (const wrapper of [...discovery.getControllers(), ...discovery.getProviders()]) {
    const { instance, metatype } = wrapper;
    if (!instance || !metatype || typeof instance !== 'object') continue;
    const prototype = Object.getPrototypeOf(instance) as object;
    for (const name of scanner.getAllMethodNames(prototype)) {
      const method = (prototype as Record<string, unknown>)[name] as () => unknown;
      const isRoute = Reflect.getMetadata(METHOD_METADATA, method) !== undefined && Reflect.getMetadata(PATH_METADATA, method) !== undefined;
      const isHubMethod = Reflect.getMetadata(MESSAGE_METADATA, method) !== undefined;
      if (!isRoute && !isHubMethod) continue;
      // The guards' own reading of the decorators (a handler's declaration wins over its class's).
      const declared = accessDeclaration(reflector, method, metatype);
      out.push({
        where: `${metatype.name}.${name}${isHubMethod ? ' (hub)' : ''}`,
        declared: declared.kind,
        permissions: declared.kind === 'permissions' ? declared.permissions : [],
      });
    }
  }
  return out;
}

describe('every route and hub method declares its permissions', () => {
  let app: NestFastifyApplication;
  let handlers: Handler[];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'route-coverage-'));
    const env = readEnvironment({
      SERVICE_CONFIG: join(dir, 'absent.yml'), SERVICE_DATA_DIR: dir, LOG_LEVEL: 'silent',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
    });
    // The real application, plus the discovery module that lets the test walk it.
    const moduleRef = await Test.createTestingModule({ imports: [AppModule.register(env), DiscoveryModule] }).compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    await app.init();
    handlers = handlersOf(app);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('finds the routes it walks (the walk itself works)', () => {
    const names = handlers.map((h) => h.where);
    expect(names).toContain('HealthController.health');
    expect(names).toContain('WebhookController.detect');
    expect(names).toContain('IdentityController.identity');
  });

  it('has no undeclared route or hub method', () => {
    const undeclared = handlers.filter((h) => h.declared === 'none').map((h) => h.where);
    expect(undeclared).toEqual([]);
  });

  it('declares no empty permission list (that would be a public route in disguise)', () => {
    const empty = handlers.filter((h) => h.declared === 'permissions' && h.permissions.length === 0).map((h) => h.where);
    expect(empty).toEqual([]);
  });

  it('keeps the public set to the routes the spec makes public, method by method', () => {
    const open = handlers.filter((h) => h.declared === 'public').map((h) => h.where).sort();
    expect(open).toEqual(PUBLIC_HANDLERS);
  });
});
