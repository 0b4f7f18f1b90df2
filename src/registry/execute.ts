import { ModelRetryError, ToolAbortedError, ToolExecutionError, ToolTimeoutError, ToolwrightError } from '../errors/errors';
import { InputUnavailableError, InvalidInputError } from '../errors/input-errors';
import type { AgentContext } from '../session/agent-context';
import type { AgentMemory } from '../session/agent-memory';
import { callInfo } from './call-info';
import type { CallOptions } from './call-options';
import { Cancellation, onAbort as onAbortOf, RUN_CANCELLATION, type CancelSource } from './cancellation';
import { isPromise } from './maybe-promise';
import type { ToolEntry } from './registered-tool';

/**
 * Runs a validated call's `execute` in the mode its options ask for and answers the tool's result,
 * a promise only when the tool is asynchronous or a signal or timeout watches it:
 *
 * - plain (no timeout, no signal): the tool's own call, nothing around it (`executePlain`);
 * - a signal and no timeout: the tool sees that signal itself (`executeWithSignal`);
 * - a timeout: the tool sees one combined signal and the call races the timer (`executeGuarded`).
 *
 * What the tool throws is TOOL_FAILED (`executionError`); a cancelled call fails with ABORTED, a late one with TIMEOUT.
 */
export function execute(
  entry: ToolEntry,
  input: object,
  context: AgentContext,
  memory: AgentMemory,
  options: CallOptions | undefined,
): unknown {
  const timeoutMs = options?.timeoutMs ?? entry.timeoutMs;
  const cancel = options?.[RUN_CANCELLATION] ?? options?.signal;
  if (timeoutMs !== undefined) return executeGuarded(entry, input, context, memory, timeoutMs, cancel, options);
  if (cancel !== undefined) return executeWithSignal(entry, input, context, memory, cancel, options!);
  return executePlain(entry, input, plainContext(context, entry.name, options), memory);
}

/** The plain mode's context: the caller's own, unless the tool must see a call id or a progress or log listener. */
function plainContext(context: AgentContext, name: string, options: CallOptions | undefined): AgentContext {
  return options?.toolCallId === undefined &&
    options?.logicalCallId === undefined &&
    options?.onProgress === undefined &&
    options?.onLog === undefined &&
    options?.onElicit === undefined &&
    options?.onSample === undefined &&
    options?.onRoots === undefined &&
    options?.onUsage === undefined
    ? context
    : context.forToolCall(callInfo(context, name, options, undefined));
}

/** The tool's `execute` and nothing around it; a synchronous tool costs no tick. */
export function executePlain(entry: ToolEntry, input: object, ctx: AgentContext, memory: AgentMemory): unknown {
  let result: unknown;
  try {
    result = entry.instance.execute(input as never, ctx, memory);
  } catch (error) {
    throw executionError(entry.name, error, entry.exposeErrors);
  }
  if (!isPromise(result)) return result;
  return result.then(undefined, (error) => {
    throw executionError(entry.name, error, entry.exposeErrors);
  });
}

/**
 * A tool's own ModelRetryError goes back to the model as is, and so does an unanswerable or invalid
 * `context.elicit` / `sample` it did not catch; anything else it throws is TOOL_FAILED.
 */
function executionError(name: string, error: unknown, expose: boolean): ToolwrightError {
  if (error instanceof InputUnavailableError || error instanceof InvalidInputError) return error;
  return error instanceof ModelRetryError ? error : new ToolExecutionError(name, error, expose);
}

/**
 * A caller's signal or the run's cancellation, and no timeout (every MCP call, every streamed
 * run's call): the tool sees that signal itself, so no AbortController or Promise.race is needed;
 * an abort listener exists only while an async tool runs, so that a tool ignoring the signal
 * still fails with ABORTED at once. A Cancellation's listener is a plain callback: no AbortSignal
 * is created unless the tool reads `context.signal`.
 */
function executeWithSignal(
  entry: ToolEntry,
  input: object,
  context: AgentContext,
  memory: AgentMemory,
  cancel: CancelSource,
  options: CallOptions,
): unknown {
  if (cancel.aborted) throw new ToolAbortedError(entry.name, cancel.reason);
  const ctx = context.forToolCall(callInfo(context, entry.name, options, cancel));
  let result: unknown;
  try {
    result = entry.instance.execute(input as never, ctx, memory);
  } catch (error) {
    throw executionError(entry.name, error, entry.exposeErrors);
  }
  if (!isPromise(result)) return result;
  const running = result;
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new ToolAbortedError(entry.name, cancel.reason));
    // Aborted while the tool's synchronous part ran (e.g. by a progress observer): ABORTED, as on the guarded path.
    if (cancel.aborted) {
      running.catch(() => undefined);
      return onAbort();
    }
    const stop = onAbortOf(cancel, onAbort);
    running.then(
      (value) => {
        stop();
        resolve(value);
      },
      (error) => {
        stop();
        reject(executionError(entry.name, error, entry.exposeErrors));
      },
    );
  });
}

/**
 * Runs a call under a timeout and/or the caller's signal; the tool sees one combined signal,
 * created only if it reads `context.signal`.
 */
async function executeGuarded(
  entry: ToolEntry,
  input: object,
  context: AgentContext,
  memory: AgentMemory,
  timeoutMs: number,
  outer: CancelSource | undefined,
  options: CallOptions | undefined,
): Promise<unknown> {
  if (outer?.aborted) throw new ToolAbortedError(entry.name, outer.reason);
  const cancel = new Cancellation();
  let settle!: (error: ToolwrightError) => void;
  const stopped = new Promise<never>((_, reject) => (settle = reject));
  const onAbort = () => {
    cancel.abort(outer?.reason);
    settle(new ToolAbortedError(entry.name, outer?.reason));
  };
  const unlink = outer && onAbortOf(outer, onAbort);
  const timer = setTimeout(() => {
    const error = new ToolTimeoutError(entry.name, timeoutMs);
    cancel.abort(error);
    settle(error);
  }, timeoutMs);
  const ctx = context.forToolCall(callInfo(context, entry.name, options, cancel));
  try {
    const running = Promise.resolve()
      .then(() => entry.instance.execute(input as never, ctx, memory))
      .catch((error) => {
        throw executionError(entry.name, error, entry.exposeErrors);
      });
    return await Promise.race([running, stopped]);
  } finally {
    clearTimeout(timer);
    unlink?.();
  }
}
