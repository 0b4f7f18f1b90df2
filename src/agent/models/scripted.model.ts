import { ModelError } from '../../errors/errors';
import type { ToolCall } from '../../session/message';
import type { Model, ModelRequest, ModelResponse } from '../model';

export interface ScriptedToolCall {
  name: string;
  /** An object is serialized to JSON; a string is passed through as written (it may be broken on purpose). */
  arguments?: Record<string, unknown> | string;
  /** Defaults to `call_1`, `call_2`, … counted over the model's whole life. */
  id?: string;
}

/** One model turn: text, tool calls, or both; or an error the "provider" throws. */
export type ScriptedStep =
  | { text: string; toolCalls?: ScriptedToolCall[]; finishReason?: string }
  | { text?: string; toolCalls: ScriptedToolCall[]; finishReason?: string }
  | { error: Error };

/** A step computed from the request, e.g. to read the last tool result and correct a call. */
export type ScriptedStepFn = (request: ModelRequest, turn: number) => ScriptedStep | Promise<ScriptedStep>;

/** A whole script as one function; returning `undefined` ends the script. */
export type ScriptFn = (request: ModelRequest, turn: number) => ScriptedStep | undefined | Promise<ScriptedStep | undefined>;

/**
 * A deterministic model for tests and demos: answers each request with the next step of its script.
 *
 * ```ts
 * const model = new ScriptedModel([
 *   { toolCalls: [{ name: 'get_order', arguments: { order_id: 'A-1' } }] },
 *   (request) => ({ text: `Done: ${request.messages.at(-1)?.content}` }),
 * ]);
 * ```
 */
export class ScriptedModel implements Model {
  readonly name: string;
  /** Every request received, in order (messages and tools copied at call time). */
  readonly requests: ModelRequest[] = [];
  private readonly script: ScriptFn;
  private readonly length: number | undefined;
  private nextCallId = 1;

  constructor(script: ReadonlyArray<ScriptedStep | ScriptedStepFn> | ScriptFn, options: { name?: string } = {}) {
    this.name = options.name ?? 'scripted';
    if (typeof script === 'function') {
      this.script = script;
    } else {
      const steps = [...script];
      this.length = steps.length;
      this.script = (request, turn) => {
        const step = steps[turn];
        return typeof step === 'function' ? step(request, turn) : step;
      };
    }
  }

  /** Steps not yet played, when the script is a list. */
  get remaining(): number | undefined {
    return this.length === undefined ? undefined : Math.max(0, this.length - this.requests.length);
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const turn = this.requests.length;
    // Copy what later turns mutate (the history grows), so assertions see what this turn saw.
    this.requests.push({ ...request, messages: structuredClone([...request.messages]), tools: structuredClone([...request.tools]) });
    if (request.signal?.aborted) throw new ModelError(this.name, 'request aborted');

    const step = await this.script(request, turn);
    if (step === undefined) {
      throw new ModelError(
        this.name,
        `script exhausted: request #${turn + 1} arrived but the script has ` +
          (this.length === undefined ? 'ended' : `only ${this.length} step(s)`) +
          '. Add a step, or check why the agent asked the model again.',
      );
    }
    if ('error' in step) throw step.error;

    const toolCalls: ToolCall[] = (step.toolCalls ?? []).map((call) => ({
      id: call.id ?? `call_${this.nextCallId++}`,
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
    }));
    const content = step.text ?? null;
    return {
      content,
      toolCalls,
      usage: { inputTokens: roughTokens(JSON.stringify([request.instructions, request.messages, request.tools])), outputTokens: roughTokens((content ?? '') + JSON.stringify(toolCalls)) },
      finishReason: step.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    };
  }
}

/** About four characters a token: enough for usage to be non-zero and grow with the input. */
function roughTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
