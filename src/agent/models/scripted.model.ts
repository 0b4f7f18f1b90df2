import { setTimeout as sleep } from 'node:timers/promises';
import { ModelError } from '../../errors/errors';
import type { ToolCall } from '../../session/message';
import type { Model, ModelRequest, ModelResponse, ModelStreamPart } from '../model';

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
  /** `text` is streamed before the error is thrown (a stream cut mid-answer); `generate` just throws. */
  | { error: Error; text?: string };

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
  /**
   * The requests received, in order, each with the messages and tools as that turn saw them; the
   * last `keepRequests` only (default 1000), so a long-lived demo model does not grow forever.
   */
  readonly requests: ModelRequest[] = [];
  private readonly script: ScriptFn;
  private readonly length: number | undefined;
  private readonly keep: number;
  private readonly chunkDelayMs: number;
  private turns = 0;
  private nextCallId = 1;
  /** Characters of each history array already counted: usage grows with the history without re-serializing it every turn. */
  private readonly counted = new WeakMap<readonly unknown[], { n: number; chars: number }>();

  constructor(
    script: ReadonlyArray<ScriptedStep | ScriptedStepFn> | ScriptFn,
    /** `chunkDelayMs`: a pause before each streamed text chunk, so a demo shows text arriving (default 0). */
    options: { name?: string; keepRequests?: number; chunkDelayMs?: number } = {},
  ) {
    this.name = options.name ?? 'scripted';
    this.keep = options.keepRequests ?? 1000;
    this.chunkDelayMs = options.chunkDelayMs ?? 0;
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
    return this.length === undefined ? undefined : Math.max(0, this.length - this.turns);
  }

  private historyChars(messages: readonly unknown[], upTo: number): number {
    let c = this.counted.get(messages);
    if (!c || c.n > upTo) c = { n: 0, chars: 0 };
    for (; c.n < upTo; c.n++) c.chars += JSON.stringify(messages[c.n]).length;
    this.counted.set(messages, c);
    return c.chars;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const { step, history } = await this.play(request);
    if ('error' in step) throw step.error;
    return this.respond(request, step, history);
  }

  /**
   * The same step streamed: its text word by word, then its tool calls (each complete), then
   * `finish` with what `generate` returns. An error step with `text` streams that text and then
   * throws its error: a stream cut in the middle, scripted.
   */
  async *stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    const { step, history } = await this.play(request);
    const response = 'error' in step ? undefined : this.respond(request, step, history);
    for (const delta of (response ? response.content : step.text)?.match(WORDS) ?? []) {
      if (this.chunkDelayMs > 0) await sleep(this.chunkDelayMs, undefined, { signal: request.signal }).catch(() => undefined);
      if (request.signal?.aborted) throw new ModelError(this.name, 'request aborted');
      yield { type: 'text-delta', delta };
    }
    if ('error' in step) throw step.error;
    for (const toolCall of response!.toolCalls) yield { type: 'tool-call', toolCall };
    yield { type: 'finish', response: response! };
  }

  /** Records the request and picks its step. */
  private async play(request: ModelRequest): Promise<{ step: ScriptedStep; history: { source: ModelRequest['messages']; seen: number } }> {
    const turn = this.turns++;
    // The history only grows after this turn (and is replaced, never edited): recording its length
    // is enough, and the messages this turn saw are sliced only if a test reads them.
    const source = request.messages;
    const seen = source.length;
    let messages: ModelRequest['messages'] | undefined;
    // Field by field, not a spread: a spread would read `signal`, which a streamed run creates only when read.
    this.requests.push({
      instructions: request.instructions,
      get messages() {
        return (messages ??= source.slice(0, seen));
      },
      tools: request.tools.slice(),
      get signal() {
        return request.signal;
      },
    });
    if (this.requests.length > this.keep) this.requests.shift();
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
    return { step, history: { source, seen } };
  }

  private respond(
    request: ModelRequest,
    step: Exclude<ScriptedStep, { error: Error }>,
    history: { source: ModelRequest['messages']; seen: number },
  ): ModelResponse {
    const toolCalls: ToolCall[] = (step.toolCalls ?? []).map((call) => ({
      id: call.id ?? `call_${this.nextCallId++}`,
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
    }));
    const content = step.text ?? null;
    return {
      content,
      toolCalls,
      usage: {
        inputTokens: roughTokens(
          JSON.stringify([request.instructions, request.tools]).length + this.historyChars(history.source, history.seen),
        ),
        outputTokens: roughTokens((content ?? '') + JSON.stringify(toolCalls)),
      },
      finishReason: step.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    };
  }
}

/** How `stream` cuts text: each word with the spaces after it (leading spaces on their own). */
const WORDS = /\S+\s*|\s+/g;

/** About four characters a token: enough for usage to be non-zero and grow with the input. */
function roughTokens(chars: number | string): number {
  return Math.max(1, Math.ceil((typeof chars === 'string' ? chars.length : chars) / 4));
}
