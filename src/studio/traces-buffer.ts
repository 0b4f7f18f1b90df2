/**
 * The Traces page's in-process exporter: a SpanProcessor that keeps the finished spans of the most
 * recent traces in memory, bounded (traces, spans per trace, spans in all), as plain records the
 * page's API answers with. Types only from the SDK: this file loads nothing of OpenTelemetry.
 */
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';

export type AttributeValue = string | number | boolean | Array<string | number | boolean | null | undefined>;

export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: SpanKindName;
  /** Epoch milliseconds (fractional). */
  start: number;
  end: number;
  status: 'unset' | 'ok' | 'error';
  statusMessage?: string;
  attributes: Record<string, AttributeValue>;
  events: Array<{ name: string; time: number; attributes: Record<string, AttributeValue> }>;
}

export type SpanKindName = 'internal' | 'server' | 'client' | 'producer' | 'consumer';
// @opentelemetry/api's SpanKind and SpanStatusCode, by number: the buffer does not load the API.
const KINDS: readonly SpanKindName[] = ['internal', 'server', 'client', 'producer', 'consumer'];
const STATUS_ERROR = 2;
const STATUS_OK = 1;

export interface TraceLimits {
  /** Traces kept; the oldest seen is dropped first. Default 100. */
  traces: number;
  /** Spans kept of one trace; later ones are counted, not kept. Default 500. */
  spansPerTrace: number;
  /** Spans kept in all; whole traces are dropped, oldest first, to stay under it. Default 10000. */
  totalSpans: number;
  /** A longer string attribute is cut (a recorded message may be large). Default 4000. */
  attributeChars: number;
}

const DEFAULT_LIMITS: TraceLimits = { traces: 100, spansPerTrace: 500, totalSpans: 10_000, attributeChars: 4000 };

export interface StoredTrace {
  spans: SpanRecord[];
  /** Spans of this trace not kept (over `spansPerTrace`). */
  dropped: number;
}

export class TraceBuffer implements SpanProcessor {
  readonly limits: TraceLimits;
  private readonly traces = new Map<string, StoredTrace>();
  private total = 0;
  private active = true;

  constructor(limits: Partial<TraceLimits> = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  onStart(_span: Span, _parentContext: Context): void {
    // Only finished spans are kept: a span's duration and status are known when it ends.
  }

  onEnd(span: ReadableSpan): void {
    if (!this.active) return;
    const traceId = span.spanContext().traceId;
    let stored = this.traces.get(traceId);
    if (!stored) {
      stored = { spans: [], dropped: 0 };
      this.traces.set(traceId, stored);
      if (this.traces.size > this.limits.traces) this.dropOldest();
    }
    if (stored.spans.length >= this.limits.spansPerTrace) {
      stored.dropped++;
      return;
    }
    stored.spans.push(this.record(span));
    this.total++;
    while (this.total > this.limits.totalSpans && this.traces.size > 1) this.dropOldest();
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  /** Keeps nothing more (an app's provider may still call it after the studio closed). */
  shutdown(): Promise<void> {
    this.active = false;
    return Promise.resolve();
  }

  /** The traces kept, in the order first seen. */
  all(): ReadonlyMap<string, StoredTrace> {
    return this.traces;
  }

  get(traceId: string): StoredTrace | undefined {
    return this.traces.get(traceId);
  }

  private dropOldest(): void {
    const [oldest, stored] = this.traces.entries().next().value as [string, StoredTrace];
    this.traces.delete(oldest);
    this.total -= stored.spans.length;
  }

  private record(span: ReadableSpan): SpanRecord {
    const context = span.spanContext();
    // SDK 2 names the parent's context; SDK 1 its id.
    const parent = span.parentSpanContext?.spanId ?? (span as { parentSpanId?: string }).parentSpanId;
    const record: SpanRecord = {
      traceId: context.traceId,
      spanId: context.spanId,
      name: span.name,
      kind: KINDS[span.kind] ?? 'internal',
      start: millis(span.startTime),
      end: millis(span.endTime),
      status: statusOf(span.status.code),
      attributes: this.attributes(span.attributes),
      events: span.events.map((e) => ({ name: e.name, time: millis(e.time), attributes: this.attributes(e.attributes ?? {}) })),
    };
    if (parent) record.parentSpanId = parent;
    if (span.status.message) record.statusMessage = this.cut(span.status.message);
    return record;
  }

  private attributes(attributes: Readonly<Record<string, unknown>>): Record<string, AttributeValue> {
    const out: Record<string, AttributeValue> = Object.create(null) as Record<string, AttributeValue>;
    for (const [key, value] of Object.entries(attributes)) {
      if (value === undefined) continue;
      out[key] = typeof value === 'string' ? this.cut(value) : (value as AttributeValue);
    }
    return out;
  }

  private cut(text: string): string {
    const max = this.limits.attributeChars;
    return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
  }
}

function statusOf(code: number): SpanRecord['status'] {
  return code === STATUS_ERROR ? 'error' : code === STATUS_OK ? 'ok' : 'unset';
}

/** An HrTime (`[seconds, nanoseconds]`) in epoch milliseconds. */
function millis([seconds, nanos]: readonly [number, number]): number {
  return seconds * 1000 + nanos / 1e6;
}
