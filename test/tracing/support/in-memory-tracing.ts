import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

/**
 * The OpenTelemetry globals this process's spans go to, as start-tracing.ts's SDK would set
 * them (async context, W3C traceparent across the job queue), exporting to memory instead of
 * OTLP. Registered before the server boots; `stop` unregisters everything, so nothing leaks
 * into whatever runs next in this worker.
 */
export interface InMemoryTracing {
  spans(): ReadableSpan[];
  stop(): Promise<void>;
}

export function startInMemoryTracing(): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  if (!context.setGlobalContextManager(contextManager)) throw new Error('a context manager was already registered');
  if (!propagation.setGlobalPropagator(new W3CTraceContextPropagator())) throw new Error('a propagator was already registered');
  if (!trace.setGlobalTracerProvider(provider)) throw new Error('a tracer provider was already registered');
  return {
    spans: () => exporter.getFinishedSpans(),
    stop: async () => {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
