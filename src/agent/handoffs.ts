import { encodeToolError } from '../errors/errors';
import type { ToolDefinition } from '../metadata/json-schema';
import type { ToolCall } from '../session/message';
import type { CatalogSelection } from './catalog';
import { setOwn, type RunState } from './run-state';
import type { HandoffTarget, RunResult } from './types';

/*
 * Handoffs: an agent with `handoffs: [billing, shipping]` offers its model one `transfer_to_<name>`
 * tool per target. Calling it ends the agent's run at that step (the call's result says where the
 * conversation went); the session records the holder (HOLDER_KEY, saved with the run) and the
 * receiving agent runs on the same session, on the same history, with its own instructions and
 * tools. A next `run` on the session, from any agent of the handoff graph, starts with the holder.
 */

/** The session state key naming the agent that holds the conversation (absent: the agent `run` is called on). */
export const HOLDER_KEY = 'toolwright:holder';

/** The tool name of a transfer to `agent` (names keep to what every provider accepts). */
export function transferName(agent: string): string {
  return `transfer_to_${agent.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 64);
}

/** The transfer tools, one per target. */
export function transferTools(targets: readonly HandoffTarget[]): ToolDefinition[] {
  return targets.map((t) => ({
    name: transferName(t.name),
    description: `Hand the conversation to the agent "${t.name}"${t.description ? `: ${t.description}` : ''}. It answers the user from here on.`,
    parameters: { type: 'object', properties: {}, additionalProperties: false },
  }));
}

/** The turn's tools with the transfer tools added. */
export function withTransfers(selection: CatalogSelection, tools: readonly ToolDefinition[]): CatalogSelection {
  if (tools.length === 0) return selection;
  const offered = selection.offered && new Set([...selection.offered, ...tools.map((t) => t.name)]);
  return { definitions: [...selection.definitions, ...tools], ...(offered && { offered }) };
}

/** The response's first transfer call and its target, if it has one. */
export function transferIn(
  calls: readonly ToolCall[],
  targets: readonly HandoffTarget[],
): { call: ToolCall; target: HandoffTarget } | undefined {
  for (const call of calls) {
    const target = targets.find((t) => transferName(t.name) === call.name);
    if (target) return { call, target };
  }
  return undefined;
}

/**
 * Records a transfer: the response in the history, the transfer's result, the other calls of the
 * response answered as not run (the receiving agent decides what to do), the holder in the session.
 */
export function recordTransfer(
  state: RunState,
  assistant: { content: string | null; toolCalls: ToolCall[] },
  call: ToolCall,
  target: string,
): void {
  const context = state.context;
  context.addMessage({ role: 'assistant', content: assistant.content, toolCalls: assistant.toolCalls });
  for (const other of assistant.toolCalls) {
    const handed = other === call;
    // The other calls are answered as cancelled: the receiving agent decides whether they happen.
    const content = handed
      ? JSON.stringify({ transferred_to: target })
      : encodeToolError('ABORTED', `Not run: the conversation was handed to "${target}".`);
    context.addMessage({ role: 'tool', toolCallId: other.id, name: other.name, content, ...(handed ? {} : { isError: true }) });
    state.records.push({
      id: other.id,
      name: other.name,
      arguments: other.arguments,
      result: content,
      status: handed ? 'ok' : 'error',
      durationMs: 0,
    });
    state.events?.emit({ type: 'tool-result', runId: state.runId, turn: state.turns, record: state.records[state.records.length - 1] });
  }
  context.setState(HOLDER_KEY, target);
  state.handoff = target;
}

/** The agent named `name` in the handoff graph reachable from `from` (itself included), if any. */
export function findInGraph<T extends HandoffTarget>(from: T, name: string): T | undefined {
  const seen = new Set<HandoffTarget>();
  const queue: HandoffTarget[] = [from];
  while (queue.length) {
    const agent = queue.shift()!;
    if (seen.has(agent)) continue;
    seen.add(agent);
    if (agent.name === name) return agent as T;
    queue.push(...agent.handoffTargets());
  }
  return undefined;
}

/** The runs of one `run` across handoffs as one result: the last agent's answer, every run's calls, turns and usage. */
export function joined(before: RunResult<unknown>, after: RunResult<unknown>): RunResult<unknown> {
  const usage = {
    inputTokens: before.usage.inputTokens + after.usage.inputTokens,
    outputTokens: before.usage.outputTokens + after.usage.outputTokens,
  };
  const result = { ...after, toolCalls: [...before.toolCalls, ...after.toolCalls], usage, turns: before.turns + after.turns };
  result.durationMs = before.durationMs + after.durationMs;
  setOwn(result as unknown as Record<string, unknown>, 'handoffs', [...(before.handoffs ?? []), ...(after.handoffs ?? [])]);
  return result;
}
