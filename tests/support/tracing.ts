import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

/**
 * The OpenTelemetry SDK as an app registers it (a global tracer provider and the
 * AsyncLocalStorage context manager), exporting to memory. `stop()` unregisters both.
 */
export function startTracing(): { exporter: InMemorySpanExporter; spans: () => ReadableSpan[]; stop: () => Promise<void> } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const manager = new AsyncLocalStorageContextManager().enable();
  if (!context.setGlobalContextManager(manager) || !trace.setGlobalTracerProvider(provider)) {
    throw new Error('an OpenTelemetry global was already registered: stop() the previous tracing first');
  }
  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    stop: async () => {
      trace.disable();
      context.disable();
      await provider.shutdown();
    },
  };
}

/** The span's parent span id, or undefined for a root span. */
export const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
