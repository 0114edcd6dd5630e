/** Injection token of the ProviderGate agent pipelines share (in the store when there is one). */
export const PROVIDER_GATE = Symbol('PROVIDER_GATE');
