import { InputUnavailableError } from '../errors/input-errors';
import type { AgentContext } from '../session/agent-context';
import type { SampleMessage, SampleRequest } from '../session/elicitation';
import type { SampleAnswer, SampleParams } from './connection';

/**
 * A server's `sampling/createMessage` through the call it came with: its surface's `onSample` (an
 * MCP client's model, over toolwright's MCP server). Only messages of one text, image or audio part
 * pass; no model there: the server hears an error.
 */
export async function sampleThrough(call: AgentContext | undefined, params: SampleParams, signal: AbortSignal): Promise<SampleAnswer> {
  const sink = call?.toolCall?.onSample;
  if (!sink) throw new InputUnavailableError('sampling', 'no model is there to ask for this remote tool');
  const request: SampleRequest = {
    messages: (Array.isArray(params.messages) ? params.messages : []).map(message),
    maxTokens: typeof params.maxTokens === 'number' ? params.maxTokens : 1000,
    ...(typeof params.systemPrompt === 'string' && { systemPrompt: params.systemPrompt }),
    ...(typeof params.temperature === 'number' && { temperature: params.temperature }),
    ...(Array.isArray(params.stopSequences) && { stopSequences: params.stopSequences.filter((s) => typeof s === 'string') }),
  };
  const result = await sink(request, signal);
  const first = result.content[0] ?? { type: 'text', text: result.text };
  return {
    role: 'assistant',
    content: first,
    model: result.model,
    ...(result.stopReason !== undefined && { stopReason: result.stopReason }),
  };
}

function message(raw: unknown): SampleMessage {
  const { role, content } = (raw ?? {}) as { role?: unknown; content?: unknown };
  const part = (Array.isArray(content) && content.length === 1 ? content[0] : content) as Record<string, unknown> | undefined;
  if ((role === 'user' || role === 'assistant') && part?.type === 'text' && typeof part.text === 'string')
    return { role, content: { type: 'text', text: part.text } };
  if (
    (role === 'user' || role === 'assistant') &&
    (part?.type === 'image' || part?.type === 'audio') &&
    typeof part.data === 'string' &&
    typeof part.mimeType === 'string'
  )
    return { role, content: { type: part.type, data: part.data, mimeType: part.mimeType } };
  throw new InputUnavailableError('sampling', 'a message of the request is not one text, image or audio part');
}
