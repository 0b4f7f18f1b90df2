import type { ToolLog } from '../session/tool-log';

/** What one call may log: a tool logging in a loop must not flood a client, a stream or a terminal. */
export const MAX_LOGS_PER_CALL = 1000;
/** One message's bound, in characters; longer messages are cut. */
export const MAX_LOG_MESSAGE_CHARS = 8192;
/** One message's data, as JSON text; larger data is replaced by a note saying so. */
export const MAX_LOG_DATA_CHARS = 16384;

/**
 * The call's log sink: its first MAX_LOGS_PER_CALL messages, each bounded and its data made plain
 * JSON (every surface sends it on as JSON), then one warning that the rest were dropped.
 */
export function logBudget(sink: (log: ToolLog) => void): (log: ToolLog) => void {
  let left = MAX_LOGS_PER_CALL;
  return (log) => {
    if (left > 0) {
      left--;
      return sink(bounded(log));
    }
    if (left-- === 0)
      sink({ level: 'warning', message: `toolwright: this call logged more than ${MAX_LOGS_PER_CALL} messages; the rest are dropped.` });
  };
}

function bounded({ level, message, data }: ToolLog): ToolLog {
  const text =
    message.length > MAX_LOG_MESSAGE_CHARS ? `${message.slice(0, MAX_LOG_MESSAGE_CHARS)}… (${message.length} characters)` : message;
  if (data === undefined) return { level, message: text };
  let json: string | undefined;
  try {
    json = JSON.stringify(data);
  } catch {
    // A cycle or a BigInt: no JSON to send.
  }
  if (json === undefined) return { level, message: text, data: { unserializable: true } };
  if (json.length > MAX_LOG_DATA_CHARS) return { level, message: text, data: { truncated: true, chars: json.length } };
  return { level, message: text, data: JSON.parse(json) as unknown };
}

/** One sink feeding two: the caller's (if any; its failure is its own) and the span's. */
export function teeLog(first: ((log: ToolLog) => void) | undefined, second: (log: ToolLog) => void): (log: ToolLog) => void {
  if (first === undefined) return second;
  return (log) => {
    try {
      const returned: unknown = first(log);
      if (returned instanceof Promise) returned.catch(() => undefined);
    } catch {
      // As context.log's own guard: a failing listener fails neither the tool nor the span's record.
    }
    second(log);
  };
}
