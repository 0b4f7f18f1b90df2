/**
 * What toolwright records in its OpenTelemetry spans (`ToolRegistry.build({ tracing })`,
 * `new Agent({ tracing })`). Spans exist only while the app has registered a tracer provider with
 * `@opentelemetry/api` (an optional peer); without one, tracing costs nothing.
 */
export interface TracingOptions {
  /**
   * Record what the model and the tools exchanged: tool call arguments and results
   * (`gen_ai.tool.call.arguments` / `gen_ai.tool.call.result`) on `execute_tool` spans, and the
   * instructions, input and output messages on `chat` spans, and a failed span's error message and
   * stack (status message, `exception` event), which may quote what the model or a tool said. Off by
   * default: they may hold personal data; a failed span then carries its code (`error.type`, and as
   * the status message) and nothing else.
   */
  recordContent?: boolean;
}
