import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService, MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { type AccessDeclaration, accessDeclaration } from '../../src/auth/access-declaration.js';

/** One registered HTTP route, as Nest's metadata says and the guard reads it. */
export interface Route {
  where: string;
  method: string;
  /** As Nest registers it with Fastify (`/api/runs/:id`). */
  nestPath: string;
  /** As OpenAPI spells it (`/api/runs/{id}`). */
  docPath: string;
  declared: AccessDeclaration;
}

const asList = (value: unknown): string[] => (Array.isArray(value) ? (value as string[]) : [(value as string | undefined) ?? '']);
const joinPath = (...parts: string[]) => `/${parts.map((p) => p.replace(/^\/+|\/+$/g, '')).filter(Boolean).join('/')}`;

/**
 * Every HTTP route of the application's controllers, walked as route-coverage.test.ts walks them
 * (that test adds DiscoveryModule to its own module; here the app is createServer's, so the
 * discovery service is built over the app's module container).
 */
export function routesOf(app: NestFastifyApplication): Route[] {
  const scanner = new MetadataScanner();
  const reflector = app.get(Reflector);
  const out: Route[] = [];
  for (const { instance, metatype } of new DiscoveryService(app.get(ModulesContainer)).getControllers()) {
    if (!instance || !metatype || typeof instance !== 'object') continue;
    const prototype = Object.getPrototypeOf(instance) as Record<string, Function>;
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name]!;
      const verb = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      const methodPath = Reflect.getMetadata(PATH_METADATA, handler) as unknown;
      if (verb === undefined || methodPath === undefined) continue;
      for (const controllerPath of asList(Reflect.getMetadata(PATH_METADATA, metatype))) {
        for (const path of asList(methodPath)) {
          const nestPath = joinPath(controllerPath, path);
          out.push({
            where: `${metatype.name}.${name}`, method: RequestMethod[verb].toLowerCase(), nestPath,
            docPath: nestPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}'),
            declared: accessDeclaration(reflector, handler, metatype),
          });
        }
      }
    }
  }
  return out;
}
