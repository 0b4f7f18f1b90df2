/**
 * What the Traces page shows of a kept trace: a summary per trace for the list, and the spans of
 * one in tree order (parents before their children, siblings by start) with offsets and depths.
 */
import type { AttributeValue, SpanRecord, StoredTrace } from './traces-buffer';

export interface TokenUsage {
  input: number;
  output: number;
}

export interface TraceSummary {
  traceId: string;
  /** The root span's name (`invoke_agent desk`), or the earliest span's while the root runs. */
  name: string;
  agent: string | null;
  tool: string | null;
  /** ISO time of the trace's first span. */
  startTime: string;
  durationMs: number;
  /** The root span's outcome. */
  status: 'ok' | 'error';
  errorType: string | null;
  /** Spans that failed, the root among them. */
  errorCount: number;
  spanCount: number;
  droppedSpans: number;
  /** Summed over the model calls (`chat` spans); null when none reported usage. */
  tokens: TokenUsage | null;
  /** false while the root span has not ended (only finished spans are kept). */
  complete: boolean;
}

export interface SpanView {
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: string;
  /** `chat`, `execute_tool`, `invoke_agent` (gen_ai.operation.name), or null for another span. */
  operation: string | null;
  depth: number;
  startOffsetMs: number;
  endOffsetMs: number;
  durationMs: number;
  status: 'unset' | 'ok' | 'error';
  statusMessage: string | null;
  errorType: string | null;
  tokens: TokenUsage | null;
  attributes: Record<string, AttributeValue>;
  events: Array<{ name: string; offsetMs: number; attributes: Record<string, AttributeValue> }>;
}

export interface TraceDetail extends TraceSummary {
  spans: SpanView[];
}

export function summarize(traceId: string, stored: StoredTrace): TraceSummary {
  const { spans } = stored;
  const ids = new Set(spans.map((s) => s.spanId));
  const roots = spans.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId));
  const start = Math.min(...spans.map((s) => s.start));
  const end = Math.max(...spans.map((s) => s.end));
  // The root is the span with no parent at all; while it runs, the earliest span whose parent is not kept.
  const trueRoot = spans.find((s) => !s.parentSpanId);
  const root = trueRoot ?? roots.reduce((a, b) => (b.start < a.start ? b : a));
  const errors = spans.filter((s) => s.status === 'error');
  return {
    traceId,
    name: root.name,
    agent: text(root.attributes['gen_ai.agent.name']) ?? firstText(spans, 'gen_ai.agent.name'),
    tool: text(root.attributes['gen_ai.tool.name']),
    startTime: new Date(start).toISOString(),
    durationMs: round(end - start),
    status: root.status === 'error' ? 'error' : 'ok',
    errorType: root.status === 'error' ? errorTypeOf(root) : null,
    errorCount: errors.length,
    spanCount: spans.length,
    droppedSpans: stored.dropped,
    tokens: sumTokens(spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat')),
    complete: trueRoot !== undefined,
  };
}

export function detail(traceId: string, stored: StoredTrace): TraceDetail {
  const summary = summarize(traceId, stored);
  const start = Math.min(...stored.spans.map((s) => s.start));
  return { ...summary, spans: treeOrder(stored.spans).map(({ span, depth }) => view(span, depth, start)) };
}

function view(span: SpanRecord, depth: number, traceStart: number): SpanView {
  const operation = text(span.attributes['gen_ai.operation.name']);
  return {
    spanId: span.spanId,
    parentSpanId: span.parentSpanId ?? null,
    name: span.name,
    kind: span.kind,
    operation,
    depth,
    startOffsetMs: round(span.start - traceStart),
    endOffsetMs: round(span.end - traceStart),
    durationMs: round(span.end - span.start),
    status: span.status,
    statusMessage: span.statusMessage ?? null,
    errorType: span.status === 'error' ? errorTypeOf(span) : null,
    tokens: operation === 'invoke_agent' ? null : usageOf(span),
    attributes: span.attributes,
    events: span.events.map((e) => ({ name: e.name, offsetMs: round(e.time - traceStart), attributes: e.attributes })),
  };
}

/** Parents before children, siblings by start; a span whose parent is not kept is a root. */
function treeOrder(spans: readonly SpanRecord[]): Array<{ span: SpanRecord; depth: number }> {
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string | undefined, SpanRecord[]>();
  for (const span of [...spans].sort((a, b) => a.start - b.start)) {
    const parent = span.parentSpanId && ids.has(span.parentSpanId) ? span.parentSpanId : undefined;
    const list = children.get(parent) ?? [];
    list.push(span);
    children.set(parent, list);
  }
  const out: Array<{ span: SpanRecord; depth: number }> = [];
  const stack = (children.get(undefined) ?? []).map((span) => ({ span, depth: 0 })).reverse();
  while (stack.length > 0) {
    const next = stack.pop()!;
    out.push(next);
    const kids = children.get(next.span.spanId) ?? [];
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ span: kids[i], depth: next.depth + 1 });
  }
  return out;
}

function usageOf(span: SpanRecord): TokenUsage | null {
  const input = span.attributes['gen_ai.usage.input_tokens'];
  const output = span.attributes['gen_ai.usage.output_tokens'];
  if (typeof input !== 'number' && typeof output !== 'number') return null;
  return { input: typeof input === 'number' ? input : 0, output: typeof output === 'number' ? output : 0 };
}

function sumTokens(spans: readonly SpanRecord[]): TokenUsage | null {
  let total: TokenUsage | null = null;
  for (const span of spans) {
    const usage = usageOf(span);
    if (!usage) continue;
    total ??= { input: 0, output: 0 };
    total.input += usage.input;
    total.output += usage.output;
  }
  return total;
}

function errorTypeOf(span: SpanRecord): string {
  return text(span.attributes['error.type']) ?? '_OTHER';
}

function text(value: AttributeValue | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

function firstText(spans: readonly SpanRecord[], key: string): string | null {
  for (const span of spans) {
    const value = text(span.attributes[key]);
    if (value !== null) return value;
  }
  return null;
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
