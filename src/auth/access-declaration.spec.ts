import { Reflector } from '@nestjs/core';
import { describe, expect, it } from 'vitest';
import { accessDeclaration } from './access-declaration.js';
import { Permission } from './permission.js';
import { Public } from './public.decorator.js';
import { RequirePermissions } from './require-permissions.decorator.js';

@Public()
class OpenController {
  open(): void {}

  @RequirePermissions(Permission.RunsRead)
  guarded(): void {}
}

class MixedController {
  @Public()
  @RequirePermissions(Permission.RunsRead)
  both(): void {}

  undeclared(): void {}
}

const reflector = new Reflector();
const of = (owner: { prototype: object }, name: string) =>
  accessDeclaration(reflector, (owner.prototype as Record<string, () => void>)[name]!, owner as never);

describe('accessDeclaration', () => {
  it('a handler inherits its class\'s @Public', () => {
    expect(of(OpenController, 'open')).toEqual({ kind: 'public' });
  });

  it('a handler\'s own @RequirePermissions is not opened up by a class-level @Public', () => {
    expect(of(OpenController, 'guarded')).toEqual({ kind: 'permissions', permissions: [Permission.RunsRead] });
  });

  it('permissions win when a handler carries both; nothing declared is `none`', () => {
    expect(of(MixedController, 'both')).toEqual({ kind: 'permissions', permissions: [Permission.RunsRead] });
    expect(of(MixedController, 'undeclared')).toEqual({ kind: 'none' });
  });
});
