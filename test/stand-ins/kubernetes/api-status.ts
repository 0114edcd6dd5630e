/** metav1.Status bodies as the API server answers its errors (kind Status, apiVersion v1). */
export interface ApiStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: { name?: string; kind?: string; causes?: { reason: string; message: string; field?: string }[] };
  code: number;
}

export function failure(code: number, reason: string, message: string, details?: ApiStatus['details']): ApiStatus {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

export const unauthorized = (): ApiStatus => failure(401, 'Unauthorized', 'Unauthorized');

export const podNotFound = (name: string): ApiStatus => failure(404, 'NotFound', `pods "${name}" not found`, { name, kind: 'pods' });

export const secretNotFound = (name: string): ApiStatus => failure(404, 'NotFound', `secrets "${name}" not found`, { name, kind: 'secrets' });

export const namespaceNotFound = (namespace: string): ApiStatus =>
  failure(404, 'NotFound', `namespaces "${namespace}" not found`, { name: namespace, kind: 'namespaces' });

export const alreadyExists = (kind: string, name: string): ApiStatus =>
  failure(409, 'AlreadyExists', `${kind} "${name}" already exists`, { name, kind });

export function invalid(kind: string, name: string, causes: { field: string; message: string }[]): ApiStatus {
  const text = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  return failure(422, 'Invalid', `${kind[0]!.toUpperCase()}${kind.slice(1, -1)} "${name}" is invalid: ${text}`, {
    name,
    kind,
    causes: causes.map((c) => ({ reason: 'FieldValueInvalid', message: c.message, field: c.field })),
  });
}

/**
 * What the exec subresource writes on its error channel (3) when the command ends: the kubelet's
 * `metav1.Status` without type meta (v4/v5 protocols marshal `StatusError.Status()` as is).
 */
export function execStatus(exitCode: number): Record<string, unknown> {
  if (exitCode === 0) return { metadata: {}, status: 'Success' };
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: command terminated with exit code ${exitCode}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
  };
}
