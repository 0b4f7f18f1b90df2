import { ModelError } from '../errors/errors';
import { Cancellation, onAbort } from '../registry/cancellation';
import type { TracingOptions } from '../tracing/options';
import { activeTracer, traceModelCall } from '../tracing/tracing';
import type { CatalogSelection } from './catalog';
import { ModelCallFailedError } from './errors';
import { FINAL_ANSWER_TOOL, partialOutput, type OutputPlan } from './final-output';
import type { Model, ModelRequest, ModelResponse } from './model';
import type { RunState } from './run-state';
import type { StepJournal } from './step-journal';

/**
 * One model turn of a run: the request, generated or streamed (text deltas to a streamed run's
 * reader as they arrive), as a `chat` span when the app traces, and with durable steps asked once
 * (a turn recorded by an attempt that died is replayed). A failure is the run's ModelCallFailedError.
 */
export class ModelTurns {
  constructor(
    private readonly model: Model,
    private readonly tracing: TracingOptions | undefined,
    private readonly steps: StepJournal | undefined,
    private readonly output: OutputPlan | undefined,
  ) {}

  /** The model's response to the run's history so far. */
  ask(state: RunState, selection: CatalogSelection): Promise<ModelResponse> {
    return this.steps ? this.replayable(this.steps, state, selection) : this.generate(state, selection);
  }

  /** A model turn as a durable step: asked once, or replayed from its record (a streamed run gets its text as one delta). */
  private async replayable(steps: StepJournal, state: RunState, selection: CatalogSelection): Promise<ModelResponse> {
    let asked = false;
    const response = await steps.step(state, `m${state.turns + 1}`, () => ((asked = true), this.generate(state, selection)));
    if (!asked && state.events && response.content)
      state.events.emit({ type: 'text-delta', runId: state.runId, turn: state.turns + 1, delta: response.content });
    return response;
  }

  /** One model call (generated or streamed). */
  private async generate(state: RunState, selection: CatalogSelection): Promise<ModelResponse> {
    try {
      const request = modelRequest(state, selection, this.output);
      const streams = state.events !== undefined && this.model.stream !== undefined;
      const response = await this.traced(state, request, () => (streams ? this.streamed(state, request) : this.model.generate(request)));
      // A model without `stream` streams its answer as one delta (here, not in a `then`: no extra promise a turn).
      if (state.events && !streams && response.content)
        state.events.emit({ type: 'text-delta', runId: state.runId, turn: state.turns + 1, delta: response.content });
      const answer = this.output && !this.output.native ? finalAnswer(response) : response;
      // ...and its structured answer as one partial object.
      if (state.events && !streams && this.output && answer.toolCalls.length === 0) {
        const partial = partialOutput(answer.content ?? '');
        if (partial) state.events.emit({ type: 'output-partial', runId: state.runId, turn: state.turns + 1, partial });
      }
      return answer;
    } catch (error) {
      throw new ModelCallFailedError(this.model.name, state.key.sessionId, state.context.getConversationHistory(), error);
    }
  }

  /** One model call as a `chat` span when the app traces. */
  private traced(state: RunState, request: ModelRequest, call: () => Promise<ModelResponse>): Promise<ModelResponse> {
    const tracer = activeTracer();
    if (tracer === undefined) return call();
    const info = {
      modelName: this.model.name,
      conversationId: state.key.sessionId,
      stream: state.events !== undefined && !!this.model.stream,
    };
    return traceModelCall(tracer, this.tracing, info, request, call);
  }

  /**
   * The turn for a stream consumer, through `model.stream`: text as it arrives, each part asked
   * for once the reader has room. A stream that ends without `finish`, or a consumer that left
   * while the model ignores the signal, ends the turn with an error.
   */
  private async streamed(state: RunState, request: ModelRequest): Promise<ModelResponse> {
    const events = state.events!;
    const turn = state.turns + 1;
    const parts = this.model.stream!(request)[Symbol.asyncIterator]();
    // The run's own cancellation, not request.signal: reading that would create an AbortSignal the model may never use.
    const signal = state.signal;
    let unlink: (() => void) | undefined;
    const aborted =
      signal &&
      new Promise<never>((_, reject) => {
        unlink = onAbort(signal, () => reject(new Error('The run was cancelled while the model streamed.', { cause: signal.reason })));
      });
    aborted?.catch(() => undefined);
    // The structured answer's text so far, for its partial object (a turn that calls tools shows none).
    let answer = this.output ? '' : undefined;
    try {
      for (;;) {
        // Pulled as the reader reads: while it is behind, the model's next part is not asked for.
        const room = events.room();
        if (room) {
          await room;
          if (signal?.aborted) await aborted; // rejects: the reader left or the caller cancelled while the run waited
        }
        const next = aborted ? await Promise.race([parts.next(), aborted]) : await parts.next();
        if (next.done) throw new ModelError(this.model.name, 'the response stream ended without a finish part');
        const part = next.value;
        if (part.type === 'text-delta') {
          events.emit({ type: 'text-delta', runId: state.runId, turn, delta: part.delta });
          if (answer !== undefined) {
            const partial = partialOutput((answer += part.delta));
            if (partial) events.emit({ type: 'output-partial', runId: state.runId, turn, partial });
          }
        } else if (part.type === 'tool-call') {
          // A final answer through the tool arrives whole: its object, once.
          if (answer !== undefined && part.toolCall.name === FINAL_ANSWER_TOOL) {
            const partial = partialOutput(part.toolCall.arguments);
            if (partial) events.emit({ type: 'output-partial', runId: state.runId, turn, partial });
          } else answer = undefined;
        } else if (part.type === 'finish') return part.response;
      }
    } finally {
      unlink?.();
      void parts.return?.()?.catch(() => undefined);
    }
  }
}

/**
 * A response that calls `final_answer` is the final answer: its arguments are the answer's text
 * (calls beside it are not run: the model said it was done).
 */
function finalAnswer(response: ModelResponse): ModelResponse {
  const call = response.toolCalls.find((c) => c.name === FINAL_ANSWER_TOOL);
  return call ? { ...response, content: call.arguments, toolCalls: [] } : response;
}

/** A model turn's request; under a streamed run's Cancellation, `signal` is created only if the model reads it. */
function modelRequest(state: RunState, selection: CatalogSelection, plan: OutputPlan | undefined): ModelRequest {
  const cancel = state.signal;
  const instructions = state.instructions;
  const messages = state.context.getConversationHistory();
  const tools = plan && !plan.native ? [...selection.definitions, plan.tool] : selection.definitions;
  const output = plan?.native ? plan.format : undefined;
  if (!(cancel instanceof Cancellation)) return { instructions, messages, tools, output, signal: cancel };
  const request = { instructions, messages, tools, output, [RUN]: cancel };
  // An own, enumerable getter shared by every request (a model wrapper's `{ ...request }` still carries the signal);
  // a getter in the literal would give every request its own hidden class, a WeakMap beside it costs more.
  return Object.defineProperty(request, 'signal', LAZY_SIGNAL);
}

const RUN = Symbol('run');
const LAZY_SIGNAL: PropertyDescriptor = {
  get(this: { [RUN]: Cancellation }) {
    return this[RUN].signal;
  },
  enumerable: true,
};
