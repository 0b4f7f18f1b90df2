import { createHash, randomUUID } from 'node:crypto';
import { ModelRetryError, ToolInputError } from '../errors/errors';
import type { JsonSchema } from '../metadata/json-schema';
import type { ApprovalPolicy, ClassType } from '../metadata/types';
import type { SourcedTool, ToolSource } from '../registry/tool-source';
import type { AgentContext } from '../session/agent-context';
import { askChildApprovals } from './child-approval';
import { ApprovalDecisionError, ChildRunPausedError } from './errors';
import { compileClassAnswer, correction, stripFence, type FinalOutput } from './final-output';
import type { AgentEvent } from './events';
import type { ModelUsage } from './model';
import { inputHash, unansweredInputs, type StoredConversation, type StoredRun } from './run-state';
import type { PendingApproval, ResumeDecision, ResumeOptions, RunOptions, RunResult } from './types';

/** `agent.asTool(...)`: how the agent appears to the model of the agent that calls it. */
export interface AgentToolOptions {
  /** The tool's name, as the calling model sees it. */
  name: string;
  description: string;
  /**
   * A class-validator class for the call's arguments; the child's task is then their JSON.
   * Default: `{ input: string }`, the task in words.
   */
  input?: ClassType;
  /** Ask a human before the child runs (as `@Tool({ approval })`). */
  approval?: ApprovalPolicy<never>;
  /** Cancels the child run (its signal fires) after this long. */
  timeoutMs?: number;
  tags?: readonly string[];
}

/** What an agent tool needs of its agent (not the class itself: no import cycle). */
export interface ChildAgent {
  readonly name: string;
  run(input: string, options: RunOptions): Promise<RunResult<unknown>>;
  resume(options: ResumeOptions, decisions: Readonly<Record<string, ResumeDecision>>): Promise<RunResult<unknown>>;
  stream(input: string, options: RunOptions): AsyncIterableIterator<AgentEvent<unknown>>;
  streamResume(options: ResumeOptions, decisions: Readonly<Record<string, ResumeDecision>>): AsyncIterableIterator<AgentEvent<unknown>>;
  loadConversation(options: Pick<RunOptions, 'sessionId' | 'tenantId' | 'userId'>): Promise<StoredConversation>;
}

const TASK_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { input: { type: 'string', minLength: 1, description: 'The task for the agent, in words.' } },
  required: ['input'],
  additionalProperties: false,
};

/**
 * An agent as a tool of another agent, offered as a tool source: `ToolRegistry.buildAsync({ tools,
 * sources: [billing.asTool(...)] })` builds it through the same pipeline as every sourced tool (schema
 * validation, authorize, approval, rate limits, timeout, `execute_tool` span). Each call runs the
 * child with its own model, tools, instructions and memory, as the caller's user and tenant, under
 * the call's signal, in a session of its own derived from the calling session and the call's
 * idempotency key: a retry of the same call finds the child's finished run and answers from it.
 * The result is the child's `output` instance, or `{ output: text }` for a child without one.
 */
export class AgentTool implements ToolSource {
  readonly name: string;
  private readonly tool: SourcedTool;
  private readonly input?: FinalOutput;

  constructor(
    private readonly agent: ChildAgent,
    options: AgentToolOptions,
    private readonly output: FinalOutput | undefined,
  ) {
    this.name = `agent "${agent.name}"`;
    if (options.input) this.input = compileClassAnswer(options.input, options.name, `agent tool "${options.name}" input`);
    this.tool = {
      definition: { name: options.name, description: options.description, parameters: this.input?.schema ?? TASK_SCHEMA },
      origin: { source: this.name, name: options.name },
      approval: options.approval,
      timeoutMs: options.timeoutMs,
      tags: options.tags,
      execute: (args, context) => this.call(args, context),
    };
  }

  list(): Promise<readonly SourcedTool[]> {
    return Promise.resolve([this.tool]);
  }

  onListChanged(): () => void {
    return () => undefined; // one tool, never changes
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private async call(args: object, context: AgentContext): Promise<unknown> {
    const task = await this.task(args);
    const call = context.toolCall;
    // A call with a stable id (an agent's, or a direct call given one) maps to one child session; others get a new one.
    const key = call !== undefined && call.id !== 'direct' ? call.idempotencyKey : randomUUID();
    const session = {
      sessionId: childSessionId(context.sessionId, this.tool.definition.name, key),
      userId: context.userId,
      tenantId: context.tenantId,
    };
    const stored = await this.agent.loadConversation(session);
    const done = await this.finished(stored, task);
    if (done !== undefined) return done;
    const paused = stored.pendingRun;
    const resume = call?.childResume;
    const forward = call?.onChildEvent;
    const step = `${this.tool.definition.name}#${call?.id ?? 'direct'}`;
    let result: RunResult<unknown>;
    if (paused && resume) {
      // The calling run was resumed with decisions for this child's calls: the child resumes with them (claimed in its store).
      const decisions = resume.decisions as Readonly<Record<string, ResumeDecision>>;
      const options = { ...session, signal: context.signal, approver: resume.approver };
      try {
        result = forward
          ? await this.relay(this.agent.streamResume(options, decisions), forward, step)
          : await this.agent.resume(options, decisions);
      } catch (error) {
        // An approver's edit the child's tool refuses: nothing was written, the child's calls wait again (and so does the caller).
        if (!(error instanceof ApprovalDecisionError)) throw error;
        throw new ChildRunPausedError(this.agent.name, session.sessionId, waitingApprovals(paused), unansweredInputs(paused));
      }
    } else if (paused) {
      // Paused before on a surface that asks the person (or the calling run's pause was not saved, a crash): asked again.
      const waiting = { approvals: waitingApprovals(paused), inputs: unansweredInputs(paused) };
      const decisions = await this.ask(context, waiting);
      if (!decisions) throw new ChildRunPausedError(this.agent.name, session.sessionId, waiting.approvals, waiting.inputs);
      result = await this.resumeWith(session, decisions, context, step);
    } else {
      const options = { ...session, signal: context.signal };
      result = forward ? await this.relay(this.agent.stream(task, options), forward, step) : await this.agent.run(task, options);
    }
    // A surface that cannot pause but can ask the person (MCP): each of the child's waiting calls is asked there, until it ends.
    while (!resume && result.status === 'paused') {
      const decisions = await this.ask(context, result);
      if (!decisions) break;
      result = await this.resumeWith(session, decisions, context, step);
    }
    // A resumed child's usage counts its run from the start: the calling run already has the part before the pause.
    call?.onUsage?.(paused ? since(result.usage, paused.usage) : result.usage);
    if (result.status === 'paused') {
      throw new ChildRunPausedError(this.agent.name, session.sessionId, result.approvals, result.inputs ?? []);
    }
    return this.output ? result.output : { output: result.output };
  }

  /**
   * The person's decisions on the child's waiting approvals, asked through `context.elicit`; undefined
   * when no one can be asked (the call then ends with the pause) or when the child waits on its own
   * questions (`context.elicit` inside the child), which are not forwarded.
   */
  private ask(context: AgentContext, waiting: Pick<RunResult<unknown>, 'approvals' | 'inputs'>) {
    if ((waiting.inputs?.length ?? 0) > 0 || waiting.approvals.length === 0) return Promise.resolve(undefined);
    return askChildApprovals(context, this.agent.name, waiting.approvals);
  }

  /** The child resumed with the person's decisions, as the calling user (claimed in its store: each call runs once). */
  private resumeWith(
    session: Pick<RunOptions, 'sessionId' | 'userId' | 'tenantId'>,
    decisions: Readonly<Record<string, ResumeDecision>>,
    context: AgentContext,
    step: string,
  ): Promise<RunResult<unknown>> {
    const options = { ...session, signal: context.signal, approver: context.userId };
    const forward = context.toolCall?.onChildEvent;
    return forward ? this.relay(this.agent.streamResume(options, decisions), forward, step) : this.agent.resume(options, decisions);
  }

  /** A streamed child run: its events into the calling run's stream, tagged with the agent and the path; its result. */
  private async relay(
    events: AsyncIterableIterator<AgentEvent<unknown>>,
    forward: (event: object) => void,
    step: string,
  ): Promise<RunResult<unknown>> {
    let result: RunResult<unknown> | undefined;
    for await (const event of events) {
      if (event.type === 'run-end') result = event.result;
      else if (FORWARDED.has(event.type)) forward({ ...event, agent: event.agent ?? this.agent.name, path: [step, ...(event.path ?? [])] });
    }
    return result!;
  }

  /** The child's task: the `input` text, or the validated arguments of an input class as JSON. */
  private async task(args: object): Promise<string> {
    if (!this.input) return (args as { input: string }).input;
    const text = JSON.stringify(args);
    // The registry checked the schema; class-validator's own rules are checked here, as the model's to correct.
    const checked = await this.input.check(text);
    if (checked instanceof ToolInputError) throw new ModelRetryError(correction(checked));
    return text;
  }

  /** The answer of a child run this call already completed (the caller retried after a crash), else undefined. */
  private async finished(stored: StoredConversation, task: string): Promise<unknown> {
    const last = stored.runLog.at(-1);
    if (last?.status !== 'completed' || last.input !== inputHash(task) || stored.pendingRun) return undefined;
    const answer = stored.history.at(-1);
    if (answer?.role !== 'assistant') return undefined;
    const text = answer.content ?? '';
    if (!this.output) return { output: text };
    const checked = await this.output.check(stripFence(text));
    return checked instanceof ToolInputError ? undefined : checked;
  }
}

function waitingApprovals(run: StoredRun): PendingApproval[] {
  return run.approvals.filter((a) => !Object.hasOwn(run.decisions, a.toolCallId));
}

function since(total: ModelUsage, before: ModelUsage): ModelUsage {
  return {
    inputTokens: Math.max(0, total.inputTokens - before.inputTokens),
    outputTokens: Math.max(0, total.outputTokens - before.outputTokens),
  };
}

/** `${parent}/${tool}:${key}`; a parent id too long to keep whole (ids are at most 512 UTF-8 bytes) is replaced by its hash. */
export function childSessionId(parent: string, tool: string, key: string): string {
  const id = `${parent}/${tool}:${key}`;
  if (Buffer.byteLength(id) <= MAX_ID_BYTES) return id;
  return `${createHash('sha256').update(parent).digest('hex').slice(0, 32)}/${tool}:${key}`;
}

const MAX_ID_BYTES = 512;

// The child's approvals, inputs and end are the calling run's to report (as its own pause, its tool result).
const FORWARDED = new Set<AgentEvent['type']>([
  'run-start',
  'text-delta',
  'tool-call',
  'tool-progress',
  'tool-log',
  'tool-result',
  'turn-end',
]);
