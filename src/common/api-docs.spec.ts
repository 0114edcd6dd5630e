import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { ApiOperation, ApiProperty, ApiSchema, applyApiDocs, getSchemaPath } from './api-docs.js';

// Swagger's own metadata keys (its DECORATORS constants), read here to see what was written.
const PROPERTIES = 'swagger/apiModelPropertiesArray';
const OPERATION = 'swagger/apiOperation';

describe('recorded OpenAPI decorators', () => {
  @ApiSchema({ name: 'Renamed' })
  class Early {
    @ApiProperty({ description: 'first' }) a: string;
    @ApiProperty({ description: 'second' }) b: number;
  }
  class Controller {
    @ApiOperation({ summary: 'does it' })
    handle(): void {}
  }

  it('writes nothing until the package is applied, then what swagger would have, in order', async () => {
    expect(Reflect.getMetadata(PROPERTIES, Early.prototype)).toBeUndefined();
    expect(Reflect.getMetadata(OPERATION, Controller.prototype.handle)).toBeUndefined();
    // The $ref is known before swagger is loaded, by the schema's name.
    expect(getSchemaPath(Early)).toBe('#/components/schemas/Renamed');
    expect(getSchemaPath(Controller)).toBe('#/components/schemas/Controller');

    applyApiDocs(await import('@nestjs/swagger'));
    expect(Reflect.getMetadata(PROPERTIES, Early.prototype)).toEqual([':a', ':b']);
    expect(Reflect.getMetadata(OPERATION, Controller.prototype.handle)).toMatchObject({ summary: 'does it' });
  });

  it('applies a decorator met after that at once', () => {
    class Late {
      @ApiProperty() c: string;
    }
    expect(Reflect.getMetadata(PROPERTIES, Late.prototype)).toEqual([':c']);
  });
});
