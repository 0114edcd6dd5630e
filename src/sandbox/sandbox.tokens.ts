/** Injection token of the configured `SandboxBackend`. */
export const SANDBOX_BACKEND = Symbol('SANDBOX_BACKEND');
