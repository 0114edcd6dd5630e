// Validation of rendered Kubernetes objects against the API's own schema, offline (no cluster).
//
// Two sources, both generated from the OpenAPI document of Kubernetes 1.36:
// - kubernetes-models (devDependency): one JSON Schema validator per kind — types, formats
//   (int32, …), enums and required fields. Kubernetes' schema allows unknown properties, so a
//   mistyped field name passes it.
// - @kubernetes/client-node (a dependency of the server): its generated models list every field
//   of every type (`attributeTypeMap`). Walking an object through them finds each field the API
//   does not define, which a cluster's strict field validation (kubectl's default) refuses.
import * as k8s from '@kubernetes/client-node';

export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** The Kubernetes release both sources were generated from (kubernetes-models 5.1.0, @kubernetes/client-node 2.0.x). */
export const SCHEMA_RELEASE = '1.36';

interface ValidatingModel {
  validate(): void;
}

/**
 * The kubernetes-models validator of the object's kind (`kubernetes-models/apps/v1/Deployment`,
 * `kubernetes-models/v1/Service`, …): the error it throws for the object, or null.
 */
export async function jsonSchemaErrors(object: KubernetesObject): Promise<string | null> {
  const specifier = `kubernetes-models/${object.apiVersion}/${object.kind}`;
  let module: Record<string, new (data: unknown) => ValidatingModel>;
  try {
    module = await import(specifier);
  } catch (error) {
    throw new Error(`cannot load ${specifier}: the devDependency kubernetes-models@5.1.0 (the schema source) must be installed (${(error as Error).message})`);
  }
  const Model = module[object.kind];
  if (!Model) throw new Error(`${specifier} exports no ${object.kind}`);
  try {
    new Model(object).validate();
    return null;
  } catch (error) {
    const errors = (error as { errors?: { instancePath: string; message?: string }[] }).errors;
    return errors?.map((e) => `${e.instancePath} ${e.message ?? ''}`.trim()).join('; ') ?? (error as Error).message;
  }
}

type AttributeMap = readonly { baseName: string; type: string }[];

function attributeMap(type: string): AttributeMap | null {
  const model = (k8s as unknown as Record<string, { attributeTypeMap?: AttributeMap }>)[type];
  return Array.isArray(model?.attributeTypeMap) ? model.attributeTypeMap : null;
}

/** `apps/v1` + `Deployment` → `V1Deployment`, the generated model's name. */
export function modelName(object: Pick<KubernetesObject, 'apiVersion' | 'kind'>): string {
  const version = object.apiVersion.split('/').pop()!;
  return `${version[0]!.toUpperCase()}${version.slice(1)}${object.kind}`;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every field path the API's model does not define, and every value of the wrong JSON type. */
export function unknownFieldErrors(object: KubernetesObject): string[] {
  const root = modelName(object);
  if (!attributeMap(root)) return [`${object.apiVersion} ${object.kind}: no such type (${root}) in Kubernetes ${SCHEMA_RELEASE}`];
  const errors: string[] = [];
  walk(object, root, '', errors);
  return errors;
}

function walk(value: unknown, type: string, path: string, errors: string[]): void {
  const at = path || '/';
  const array = /^Array<(.+)>$/.exec(type);
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (array) {
    if (!Array.isArray(value)) return void errors.push(`${at}: expected an array (${type})`);
    value.forEach((item, index) => walk(item, array[1]!, `${path}/${index}`, errors));
  } else if (map) {
    if (!isPlainObject(value)) return void errors.push(`${at}: expected a map (${type})`);
    for (const [key, item] of Object.entries(value)) walk(item, map[1]!, `${path}/${key}`, errors);
  } else if (type === 'string' || type === 'Date') {
    if (typeof value !== 'string') errors.push(`${at}: expected a string`);
  } else if (type === 'number') {
    if (typeof value !== 'number') errors.push(`${at}: expected a number`);
  } else if (type === 'boolean') {
    if (typeof value !== 'boolean') errors.push(`${at}: expected a boolean`);
  } else if (type === 'IntOrString') {
    if (typeof value !== 'number' && typeof value !== 'string') errors.push(`${at}: expected an integer or a string`);
  } else if (type !== 'any' && type !== 'object') {
    const fields = attributeMap(type);
    // A named type without fields is an enumeration of strings (checked by the JSON Schema).
    if (!fields) return void (typeof value !== 'string' && errors.push(`${at}: expected a string (${type})`));
    if (!isPlainObject(value)) return void errors.push(`${at}: expected an object (${type})`);
    for (const [key, child] of Object.entries(value)) {
      const field = fields.find((f) => f.baseName === key);
      if (!field) errors.push(`${path}/${key}: unknown field (${type} has no "${key}")`);
      else walk(child, field.type, `${path}/${key}`, errors);
    }
  }
}
