/**
 * Where the Traces page's spans come from. With no tracer provider registered, the studio registers
 * one (the SDK's BasicTracerProvider, exporting into a TraceBuffer, with the AsyncLocalStorage
 * context manager so spans nest) and unregisters exactly that on close. With the app's provider
 * registered (a collector), that one stays: traces go there, and also to the page when the
 * provider takes another processor (SDK 1's `addSpanProcessor`). The SDK packages are optional
 * peers, loaded only here, when a studio starts.
 */
import type * as OTelApi from '@opentelemetry/api';
import type * as AsyncHooks from '@opentelemetry/context-async-hooks';
import type * as SdkTraceBase from '@opentelemetry/sdk-trace-base';
import { TraceBuffer, type TraceLimits } from './traces-buffer';

/** Loads a package by name: `require`, or a test's stand-in. */
export type PackageLoader = (name: string) => unknown;

export const OTEL_PACKAGES = ['@opentelemetry/api', '@opentelemetry/sdk-trace-base', '@opentelemetry/context-async-hooks'] as const;

export type CollectorStatus =
  /** The studio registered its own provider: the page shows every span of this process. */
  | { mode: 'in-process' }
  /** The app registered a provider: spans go to its collector; `shown` when the page sees them too. */
  | { mode: 'app-collector'; shown: boolean }
  /** No provider, and the studio cannot register one: these packages are missing. */
  | { mode: 'unavailable'; missing: string[] };

export interface TraceCollector {
  status: CollectorStatus;
  /** Undefined when the page sees no spans. */
  buffer?: TraceBuffer;
  close(): Promise<void>;
}

/** The globals @opentelemetry/api 1.x registers (every copy of the API shares them). */
const REGISTRATIONS = Symbol.for('opentelemetry.js.api.1');
type Registered = { trace?: unknown; context?: unknown } | undefined;
const registered = (): Registered => (globalThis as Record<symbol, Registered>)[REGISTRATIONS];

// eslint-disable-next-line @typescript-eslint/no-require-imports
const defaultLoader: PackageLoader = (name) => require(name);

export function startTraceCollector(load: PackageLoader = defaultLoader, limits?: Partial<TraceLimits>): TraceCollector {
  if (registered()?.trace !== undefined) return joinAppProvider(load, limits);
  const loaded: Record<string, unknown> = {};
  const missing: string[] = [];
  for (const name of OTEL_PACKAGES) {
    try {
      loaded[name] = load(name);
    } catch {
      missing.push(name);
    }
  }
  if (missing.length > 0) return { status: { mode: 'unavailable', missing }, close: () => Promise.resolve() };
  const api = loaded['@opentelemetry/api'] as typeof OTelApi;
  const { BasicTracerProvider } = loaded['@opentelemetry/sdk-trace-base'] as typeof SdkTraceBase;
  const { AsyncLocalStorageContextManager } = loaded['@opentelemetry/context-async-hooks'] as typeof AsyncHooks;

  const buffer = new TraceBuffer(limits);
  // SDK 2 takes processors in the constructor; SDK 1 (before 1.29) only through addSpanProcessor.
  const legacy = BasicTracerProvider.prototype as { addSpanProcessor?: (processor: TraceBuffer) => void };
  const provider =
    typeof legacy.addSpanProcessor === 'function' ? new BasicTracerProvider() : new BasicTracerProvider({ spanProcessors: [buffer] });
  (provider as typeof legacy).addSpanProcessor?.(buffer);
  // An app may have registered a context manager without a provider: that one stays.
  let manager: AsyncHooks.AsyncLocalStorageContextManager | undefined;
  if (registered()?.context === undefined) {
    manager = new AsyncLocalStorageContextManager().enable();
    if (!api.context.setGlobalContextManager(manager)) {
      manager.disable();
      manager = undefined;
    }
  }
  if (!api.trace.setGlobalTracerProvider(provider)) {
    if (manager && registered()?.context === manager) api.context.disable();
    return joinAppProvider(load, limits);
  }
  return {
    status: { mode: 'in-process' },
    buffer,
    close: async () => {
      // Only what the studio registered, and only while it is still what is registered.
      const proxy = api.trace.getTracerProvider() as Partial<OTelApi.ProxyTracerProvider>;
      if (proxy.getDelegate?.() === provider) api.trace.disable();
      if (manager && registered()?.context === manager) api.context.disable();
      await provider.shutdown();
    },
  };
}

/** The app's provider stays; the page sees its spans when it takes another processor cheaply. */
function joinAppProvider(load: PackageLoader, limits?: Partial<TraceLimits>): TraceCollector {
  let delegate: { addSpanProcessor?: (processor: TraceBuffer) => void } | undefined;
  try {
    const api = load('@opentelemetry/api') as typeof OTelApi;
    const proxy = api.trace.getTracerProvider() as Partial<OTelApi.ProxyTracerProvider>;
    delegate = proxy.getDelegate?.() as typeof delegate;
  } catch {
    delegate = undefined; // registered through a copy of the API this package cannot load
  }
  if (typeof delegate?.addSpanProcessor !== 'function') {
    return { status: { mode: 'app-collector', shown: false }, close: () => Promise.resolve() };
  }
  const buffer = new TraceBuffer(limits);
  delegate.addSpanProcessor(buffer);
  // A processor cannot be taken back from a provider: the buffer stops keeping spans instead.
  return { status: { mode: 'app-collector', shown: true }, buffer, close: () => buffer.shutdown() };
}
