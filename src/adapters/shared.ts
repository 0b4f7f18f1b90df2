import type { ApprovalDecision } from '../agent/agent';
import { encodeToolError, ToolwrightConfigError, ToolwrightError } from '../errors/errors';
import type { CallOptions, ToolRegistry } from '../registry/tool-registry';
import type { ToolDefinition } from '../metadata/json-schema';
import type { AgentContext } from '../session/agent-context';
import type { AgentMemory } from '../session/agent-memory';

/** The session state and memory a tool call reads and writes. */
export interface ToolSession {
  context: AgentContext;
  memory: AgentMemory;
}

/**
 * Where the adapters get context and memory: one fixed pair, or a function of the host
 * library's per-run value (the AI SDK's `experimental_context`, the Agents SDK's
 * `RunContext.context`, LangChain's `RunnableConfig`), so one tool set can serve many users.
 */
export type SessionSource<R> = ToolSession | ((runtime: R) => ToolSession | Promise<ToolSession>);

export interface AdapterOptions<R> {
  /** Required: tools read the user and session from it, so there is no silent default. */
  session: SessionSource<R>;
  /** Only these tools (default: every tool in the registry). Unknown names fail with TOOL_NOT_FOUND. */
  tools?: readonly string[];
  /**
   * `result` (default): a ToolwrightError (bad arguments, a failed tool…) becomes the compact JSON
   * the model may see (`toToolResult()`), so the model can correct itself. `throw`: it propagates
   * to the host library's own error handling.
   */
  errors?: 'result' | 'throw';
}

/** The definitions selected by `options.tools`, in registry order (or the order given). */
export function selectDefinitions(registry: ToolRegistry, names: readonly string[] | undefined): ToolDefinition[] {
  if (names === undefined) return [...registry.definitions()];
  return names.map((name) => registry.describe(name).definition);
}

export async function resolveSession<R>(source: SessionSource<R>, runtime: R): Promise<ToolSession> {
  const session = typeof source === 'function' ? await source(runtime) : source;
  if (!session || !session.context || !session.memory) {
    throw new ToolwrightConfigError(
      'toolwright adapter: the session resolver must return { context, memory } (an AgentContext and an AgentMemory).',
    );
  }
  return session;
}

/** What an approver is asked: the call as it would run, for the user the session belongs to. */
export interface ApprovalRequest {
  name: string;
  /** The validated arguments, as plain JSON. */
  args: unknown;
  toolCallId?: string;
  context: AgentContext;
}

/** The app's human in the loop: approve (optionally with edited arguments, validated again) or reject with a reason. */
export type Approver = (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>;

/**
 * Who decides a call that needs approval: `'host'` when the host library's own approval flow
 * (`needsApproval`) has already decided before the tool runs, an app's approver, or nobody (the
 * call fails with APPROVAL_REQUIRED).
 */
export type ApprovalMode = 'host' | Approver | undefined;

/** Asks the gate whether this call needs a human, for the host library's `needsApproval`. Invalid or hidden calls need none: they fail when run. */
export async function needsApproval(registry: ToolRegistry, name: string, args: unknown, session: ToolSession): Promise<boolean> {
  try {
    return (await registry.check(name, args ?? {}, session.context)).approvalRequired;
  } catch {
    return false;
  }
}

export interface ToolRun {
  /** The result JSON, or the error's compact JSON. */
  text: string;
  failed: boolean;
}

/** Runs one call through the registry (parse, validate, execute, check output); errors per policy. */
export async function runTool<R>(
  registry: ToolRegistry,
  name: string,
  args: string | object,
  options: AdapterOptions<R>,
  runtime: R,
  callOptions: CallOptions,
  approval?: ApprovalMode,
): Promise<ToolRun> {
  const { context, memory } = await resolveSession(options.session, runtime);
  try {
    if (typeof approval === 'function' && registry.describe(name).approval !== undefined) {
      const check = await registry.check(name, args, context);
      if (check.approvalRequired) {
        const decision = await approval({
          name,
          args: JSON.parse(JSON.stringify(check.input)),
          toolCallId: callOptions.toolCallId,
          context,
        });
        if (decision?.approve !== true) {
          const reason = decision && 'reason' in decision ? decision.reason : 'no reason given';
          return { text: encodeToolError('REJECTED', `A human rejected this call: ${reason}`), failed: true };
        }
        if (decision.arguments !== undefined) args = decision.arguments;
        callOptions = { ...callOptions, approved: true };
      }
    } else if (approval === 'host') {
      callOptions = { ...callOptions, approved: true };
    }
    return { text: await registry.call(name, args, context, memory, callOptions), failed: false };
  } catch (error) {
    if (options.errors !== 'throw' && error instanceof ToolwrightError) return { text: error.toToolResult(), failed: true };
    throw error;
  }
}
