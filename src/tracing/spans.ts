import { type Attributes, type Context, type Span, SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';

/**
 * The server's spans. Without OTEL_EXPORTER_OTLP_ENDPOINT no SDK is registered and the API's
 * tracer is a no-op, so these cost a function call. Attributes are identifiers and figures only
 * (platform, project, ticket key, run id, pipeline, step, model, tokens, tool name, outcome):
 * never ticket or pull-request text, prompts, command lines or anything secret.
 */
export const tracer = trace.getTracer('pipeline-service');

export interface SpanOptions {
  attributes?: Attributes;
  kind?: SpanKind;
  /** A W3C traceparent carried across the job queue: the span continues that trace. */
  traceparent?: string | null;
}

/** Runs `work` inside a span that ends with it; a throw marks the span failed and is rethrown. */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const parent = options.traceparent ? extract(options.traceparent) : context.active();
  return tracer.startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes ?? {} }, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.name ?? 'error' });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Marks a span failed with a short, text-free reason (e.g. `step failed`), not the error's message. */
export function failSpan(span: Span, reason: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
}

/** The active span's context as a W3C traceparent, to put beside a queued job; null when not tracing. */
export function currentTraceparent(): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier['traceparent'] ?? null;
}

/** `{traceparent}` to spread into a queued request while tracing; nothing otherwise (the job stays as it was). */
export function traceContext(): { traceparent?: string } {
  const traceparent = currentTraceparent();
  return traceparent ? { traceparent } : {};
}

function extract(traceparent: string): Context {
  return propagation.extract(context.active(), { traceparent });
}

export { SpanKind };
