/** Injection token of the `ServiceEnvironment` the process (or a test) was started with. */
export const SERVICE_ENVIRONMENT = Symbol('SERVICE_ENVIRONMENT');
