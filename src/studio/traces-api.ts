/**
 * The Traces page's API: `GET /api/traces` (the recent traces, newest first, and where spans go)
 * and `GET /api/traces/:traceId` (one trace's spans). The span buffer starts with the studio.
 */
import { InvalidIdError, ToolwrightError } from '../errors/errors';
import type { StudioContext, StudioPageApi, StudioPageFactory } from './routes';
import { OTEL_PACKAGES, startTraceCollector, type PackageLoader, type TraceCollector } from './traces-collector';
import { detail, summarize, type TraceSummary } from './traces-view';

const TRACE_ID = /^[0-9a-f]{32}$/;

/** The page factory, with the loader of the OpenTelemetry packages (a test simulates one missing). */
export function tracesPageWith(load?: PackageLoader): StudioPageFactory {
  return (_context: StudioContext): StudioPageApi => {
    const collector = startTraceCollector(load);
    return {
      routes: [
        { method: 'GET', path: '/api/traces', handle: async (request) => ({ json: list(collector, request.query) }) },
        { method: 'GET', path: '/api/traces/:traceId', handle: async (request) => ({ json: one(collector, request.params.traceId) }) },
      ],
      close: () => collector.close(),
    };
  };
}

export const tracesPage: StudioPageFactory = tracesPageWith();

function list(collector: TraceCollector, query: URLSearchParams) {
  const limitText = query.get('limit');
  const limit = limitText === null ? Infinity : Number(limitText);
  if (limitText !== null && (!/^\d{1,4}$/.test(limitText) || limit < 1))
    throw new ToolwrightError('INVALID_REQUEST', 'limit is a whole number of traces, at least 1.');
  const traces: TraceSummary[] = [];
  for (const [traceId, stored] of collector.buffer?.all() ?? []) if (stored.spans.length > 0) traces.push(summarize(traceId, stored));
  // Newest first; traces started in the same millisecond stay newest-seen first (the sort is stable).
  traces.reverse().sort((a, b) => (a.startTime < b.startTime ? 1 : a.startTime > b.startTime ? -1 : 0));
  return { collector: collectorInfo(collector), traces: traces.slice(0, limit) };
}

function one(collector: TraceCollector, traceId: string) {
  if (!TRACE_ID.test(traceId))
    throw new InvalidIdError('trace id', 'not 32 lowercase hex digits', 'A trace id is 32 lowercase hex digits.');
  const stored = collector.buffer?.get(traceId);
  // RUN_NOT_FOUND (404): a trace is one run's record; it may also have been dropped from the buffer.
  if (!stored || stored.spans.length === 0)
    throw new ToolwrightError('RUN_NOT_FOUND', `No trace ${traceId} is kept here (the page keeps the most recent ones).`);
  return detail(traceId, stored);
}

function collectorInfo(collector: TraceCollector) {
  const { status } = collector;
  const limits = collector.buffer?.limits;
  const kept = limits ? { traces: limits.traces, spansPerTrace: limits.spansPerTrace } : null;
  if (status.mode === 'unavailable') {
    return { ...status, install: `npm install ${status.missing.join(' ')}`, packages: [...OTEL_PACKAGES], kept };
  }
  return { ...status, kept };
}
