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
