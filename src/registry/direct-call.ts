import { ToolInputError } from '../errors/errors';
import { AgentContext } from '../session/agent-context';
import { AgentMemory } from '../session/agent-memory';
import { throwIfRefused } from './call-pipeline';
import type { CallOptions } from './call-options';
import { executePlain } from './execute';
import { isPromise, rejectLater, then } from './maybe-promise';
import type { ToolEntry } from './registered-tool';

/** The context of a call made without one (a script, a test). */
export const directContext = (): AgentContext => new AgentContext({ sessionId: 'direct' });

/** The memory of a call made without one. */
export const directMemory = (context: AgentContext): AgentMemory =>
  new AgentMemory({ agentName: 'direct', userId: context.userId ?? 'anonymous' });

/** Can `settleDirect` take this call? The tool is visible to everyone, needs no approval (or has it), and runs without a signal, timeout, call id or listener. */
export function isDirectCall(entry: ToolEntry, options: CallOptions | undefined): boolean {
  return (
    entry.gated !== true &&
    entry.rateRules === undefined &&
    (entry.approval === undefined || options?.approved === true) &&
    entry.timeoutMs === undefined &&
    (options === undefined ||
      (options.timeoutMs === undefined &&
        options.signal === undefined &&
        options.toolCallId === undefined &&
        options.logicalCallId === undefined &&
        options.onProgress === undefined &&
        options.onLog === undefined &&
        options.onContent === undefined &&
        options.onElicit === undefined &&
        options.onSample === undefined &&
        options.onRoots === undefined &&
        options.onUsage === undefined &&
        options.childResume === undefined &&
        options.onChildEvent === undefined))
  );
}

/**
 * The fast path of the common call (see `isDirectCall`): the same pipeline as `ToolRegistry.call`
 * (parse → validate → hydrate → residual checks → execute → serialize) without an async frame. A
 * synchronous parse and tool settle with one resolved promise, which is all the caller's `await`
 * costs. A refusal is neither thrown a second time nor returned already rejected: it rejects one
 * tick later (`rejectLater`).
 */
export function settleDirect(
  entry: ToolEntry,
  args: string | object,
  context = directContext(),
  memory = directMemory(context),
): Promise<string> {
  try {
    const parsed = entry.parse(args);
    if (parsed instanceof ToolInputError) return rejectLater(parsed);
    const out = isPromise(parsed)
      ? parsed.then((input) => executeAndSerialize(entry, throwIfRefused(input), context, memory))
      : executeAndSerialize(entry, parsed, context, memory);
    return typeof out === 'string' ? Promise.resolve(out) : out;
  } catch (error) {
    return rejectLater(error);
  }
}

function executeAndSerialize(entry: ToolEntry, input: object, context: AgentContext, memory: AgentMemory): string | Promise<string> {
  return then(executePlain(entry, input, context, memory), entry.serialize);
}
