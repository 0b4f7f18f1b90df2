import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  type CreateMessageRequest,
  type ElicitRequest,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { InputUnavailableError } from '../errors/input-errors';
import type { CallOptions } from '../registry/call-options';
import type { InputAnswer, InputRequest, SampleContent, SampleRequest, SampleResult } from '../session/elicitation';

/**
 * The answer read as the client sent it: `action` checked, `content` left as parsed JSON, for the
 * form's own pipeline to judge (a zod record would copy it, and turn a `__proto__` key into a prototype).
 */
const RawElicitResult = ElicitResultSchema.pick({ action: true }).passthrough();

type SendRequest = RequestHandlerExtra<ServerRequest, ServerNotification>['sendRequest'];

/** A person may take their time: the SDK's 60-second default would cut them off. The call's own signal and timeout still end the wait. */
const ANSWER_TIMEOUT_MS = 60 * 60 * 1000;

/** `context.elicit` / `elicitUrl` / `sample` of one tools/call, asked on that request's own stream, as the client declared it can. */
export function inputSinks(server: Server, sendRequest: SendRequest): Pick<CallOptions, 'onElicit' | 'onSample'> {
  return {
    onElicit: async (request, signal) => {
      const params = elicitParams(server, request);
      const result = (await sendRequest({ method: 'elicitation/create', params } as ElicitRequest, RawElicitResult, {
        signal,
        timeout: ANSWER_TIMEOUT_MS,
      })) as { action: InputAnswer['action']; content?: unknown };
      return result.action === 'accept' ? { action: 'accept', content: result.content } : { action: result.action };
    },
    onSample: async (request, signal) => {
      if (!server.getClientCapabilities()?.sampling) throw new InputUnavailableError('sampling', 'the MCP client does not offer sampling');
      const ask = { method: 'sampling/createMessage', params: samplingParams(request) } as CreateMessageRequest;
      const result = (await sendRequest(ask, CreateMessageResultSchema, {
        signal,
        timeout: ANSWER_TIMEOUT_MS,
      })) as { content: SampleContent; model: string; stopReason?: string };
      return sampleResult(result);
    },
  };
}

/** `elicitation/create`'s params, if the client declared the mode (an empty `elicitation: {}` is form only). */
function elicitParams(server: Server, request: InputRequest): Record<string, unknown> {
  const declared = server.getClientCapabilities()?.elicitation as { form?: object; url?: object } | undefined;
  if (!declared) throw new InputUnavailableError(request.mode, 'the MCP client does not support elicitation');
  if (request.mode === 'url') {
    if (!declared.url) throw new InputUnavailableError('url', 'the MCP client does not support URL elicitation');
    return { mode: 'url', message: request.message, url: request.url, elicitationId: randomUUID() };
  }
  if (!declared.form && Object.keys(declared).length > 0)
    throw new InputUnavailableError('form', 'the MCP client does not support form elicitation');
  return { mode: 'form', message: request.message, requestedSchema: request.requestedSchema };
}

function samplingParams(request: SampleRequest): Record<string, unknown> {
  const params: Record<string, unknown> = { messages: request.messages, maxTokens: request.maxTokens };
  if (request.systemPrompt !== undefined) params.systemPrompt = request.systemPrompt;
  if (request.temperature !== undefined) params.temperature = request.temperature;
  if (request.stopSequences !== undefined) params.stopSequences = request.stopSequences;
  return params;
}

function sampleResult(result: { content: SampleContent | SampleContent[]; model: string; stopReason?: string }): SampleResult {
  const content = Array.isArray(result.content) ? result.content : [result.content];
  const text = content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  const answer: SampleResult = { text, content, model: result.model };
  if (result.stopReason !== undefined) answer.stopReason = result.stopReason;
  return answer;
}
