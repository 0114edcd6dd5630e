import type { ServiceEnvironment } from '../config/environment.js';

/** Flushes and stops the exporter; a no-op when tracing is off. */
export type StopTracing = () => Promise<void>;

let stop: StopTracing = async () => undefined;

/**
 * Starts the OpenTelemetry SDK with the OTLP/HTTP trace exporter when OTEL_EXPORTER_OTLP_ENDPOINT
 * is set, before the application is built (so its spans have a provider). The SDK is imported
 * only then: a server that does not trace never loads it. The exporter reads the standard
 * OTEL_* variables itself (endpoint, headers, service name). No automatic instrumentation: the
 * server's own spans (spans.ts) choose what they carry.
 */
export async function startTracing(env: ServiceEnvironment): Promise<void> {
  if (!env.otlpEndpoint) return;
  const [{ NodeSDK }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ 'service.name': env.variables['OTEL_SERVICE_NAME'] ?? 'pipeline-service' }),
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [],
  });
  sdk.start();
  stop = () => sdk.shutdown();
}

/** Called on shutdown, after the application closed: the last spans are sent. */
export function stopTracing(): Promise<void> {
  return stop().catch(() => undefined);
}
