import type { CallOptions } from '../registry/call-options';
import type { Message } from '../session/message';
import type { SampleContent, SampleSink } from '../session/elicitation';
import type { Model, ModelUsage } from './model';

/**
 * A tool's `context.sample` answered by a model of the agent (`AgentOptions.sampling`): one
 * request without tools, its tokens counted in the run's usage. The model interface has no
 * token bound, so `maxTokens` is not passed on; images and audio reach it as a note naming them.
 */
export function modelSampler(model: Model, usage: ModelUsage): SampleSink {
  return async (request, signal) => {
    const messages: Message[] = request.messages.map((m) => ({ role: m.role, content: textOf(m.content) }));
    const response = await model.generate({ instructions: request.systemPrompt, messages, tools: [], signal });
    if (response.usage) {
      usage.inputTokens += response.usage.inputTokens;
      usage.outputTokens += response.usage.outputTokens;
    }
    const text = response.content ?? '';
    const result = { text, content: [{ type: 'text' as const, text }], model: model.name };
    return response.finishReason === undefined ? result : { ...result, stopReason: response.finishReason };
  };
}

function textOf(content: SampleContent): string {
  return content.type === 'text' ? content.text : `[${content.type}: ${content.mimeType}, not shown to this model]`;
}

/** What a call of the run may add to its usage: `context.sample` answered by the agent's model, tokens a tool reports (an agent tool's child run). */
export function usageSinks(sampler: Model | undefined, usage: ModelUsage): Pick<CallOptions, 'onSample' | 'onUsage'> {
  return { onSample: sampler && modelSampler(sampler, usage), onUsage: (reported) => addUsage(usage, reported) };
}

/** Adds a tool's reported tokens to the run's usage; anything but finite non-negative counts is ignored (`onUsage` is open to every tool). */
export function addUsage(total: { inputTokens: number; outputTokens: number }, usage: unknown): void {
  const { inputTokens, outputTokens } = (usage ?? {}) as Record<string, unknown>;
  if (!count(inputTokens) || !count(outputTokens)) return;
  total.inputTokens += inputTokens;
  total.outputTokens += outputTokens;
}

const count = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
