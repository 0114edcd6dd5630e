import { Controller, Get, type INestApplication, Post } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { ApiUnauthorizedResponse } from '@nestjs/swagger';
import { Test } from '@nestjs/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../openapi/openapi-document.js';
import { accessDeclaration } from './access-declaration.js';
import { Permission } from './permission.js';
import { Public } from './public.decorator.js';
import { RequirePermissions } from './require-permissions.decorator.js';

/** A class-level declaration, and methods that keep it, override it or contradict themselves. */
@RequirePermissions(Permission.RunsRead)
@Controller('guarded')
class GuardedController {
  @Get('inherits')
  inherits(): void {}

  @Get('open')
  @Public()
  open(): void {}

  @Get('own')
  @RequirePermissions(Permission.ConfigExport, Permission.SecretsRead)
  own(): void {}

  @Post('both-public-outer')
  @Public()
  @RequirePermissions(Permission.RunsControl)
  bothPublicOuter(): void {}

  @Post('both-public-inner')
  @RequirePermissions(Permission.RunsControl)
  @Public()
  bothPublicInner(): void {}
}

@Public()
@Controller('open')
class OpenController {
  @Get('inherits')
  inherits(): void {}

  @Get('own')
  @RequirePermissions(Permission.RunsDelete)
  own(): void {}

  /** A public route that answers 401 itself (as the webhooks do): its own answer stays. */
  @Post('signed')
  @ApiUnauthorizedResponse({ description: 'bad signature' })
  signed(): void {}
}

/** What each operation must show, spelled out (not derived), so the test cannot agree with a wrong reading. */
const EXPECTED: Record<string, string[] | 'public'> = {
  'get /guarded/inherits': [Permission.RunsRead],
  'get /guarded/open': 'public',
  'get /guarded/own': [Permission.ConfigExport, Permission.SecretsRead],
  'post /guarded/both-public-outer': [Permission.RunsControl],
  'post /guarded/both-public-inner': [Permission.RunsControl],
  'get /open/inherits': 'public',
  'get /open/own': [Permission.RunsDelete],
  'post /open/signed': 'public',
};

interface Operation {
  security?: unknown[];
  description?: string;
  'x-required-permissions'?: string[];
  responses: Record<string, { description: string }>;
}

describe('one declaration drives enforcement and the OpenAPI document', () => {
  let app: INestApplication;
  let operations: Record<string, Operation>;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ controllers: [GuardedController, OpenController] }).compile();
    app = moduleRef.createNestApplication(new FastifyAdapter(), { logger: false });
    await app.init();
    const document = buildOpenApiDocument(app);
    operations = Object.fromEntries(Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, Operation>).map(([method, op]) => [`${method} ${path}`, op])));
  });

  afterAll(async () => {
    await app?.close();
  });

  it('documents every route as expected: a method\'s own declaration wins over its class\'s, permissions over @Public', () => {
    expect(Object.keys(operations).sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const [key, expected] of Object.entries(EXPECTED)) {
      const op = operations[key]!;
      if (expected === 'public') {
        expect(op.security, key).toEqual([]);
        expect(op['x-required-permissions'], key).toBeUndefined();
        expect(op.description, key).toBe('Public: no token needed.');
        expect(op.responses['403'], key).toBeUndefined();
      } else {
        expect(op.security, key).toEqual([{ bearer: [] }]);
        expect(op['x-required-permissions'], key).toEqual(expected);
        expect(op.description, key).toBe(`Requires: ${expected.join(' + ')}.`);
        expect(Object.keys(op.responses), key).toEqual(expect.arrayContaining(['401', '403']));
      }
    }
    expect(operations['get /guarded/own']!.responses['403']!.description).toBe('the token lacks one or more of config.export, secrets.read');
    expect(operations['post /open/signed']!.responses['401']!.description).toBe('bad signature');
  });

  it('agrees with the guard\'s reading of the same decorators', () => {
    const reflector = new Reflector();
    for (const owner of [GuardedController, OpenController]) {
      for (const name of Object.getOwnPropertyNames(owner.prototype).filter((n) => n !== 'constructor')) {
        const declared = accessDeclaration(reflector, (owner.prototype as unknown as Record<string, Function>)[name]!, owner);
        const op = Object.entries(operations).find(([, o]) => (o as { operationId?: string }).operationId === `${owner.name}_${name}`)?.[1];
        expect(op, `${owner.name}.${name}`).toBeDefined();
        expect(op!['x-required-permissions'] ?? 'public', `${owner.name}.${name}`).toEqual(declared.kind === 'permissions' ? declared.permissions : 'public');
      }
    }
  });
});
