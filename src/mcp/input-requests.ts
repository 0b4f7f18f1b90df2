import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
  type CreateMessageRequest,
  type ElicitRequest,
  type ListRootsRequest,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { InputUnavailableError } from '../errors/input-errors';
import type { CallOptions } from '../registry/call-options';
import type { InputAnswer, InputRequest, Root, SampleContent, SampleRequest, SampleResult } from '../session/elicitation';

/**
 * Where a question's key travels to the 2026-07-28 serving, which asks by name (`inputRequests`);
 * it is taken out of the request there. A 2025 client sees it in `_meta`, where vendor keys belong.
 */
export const INPUT_KEY_META = 'io.toolwright/inputKey';

/**
 * The answer read as the client sent it: `action` checked, `content` left as parsed JSON, for the
 * form's own pipeline to judge (a zod record would copy it, and turn a `__proto__` key into a prototype).
 */
const RawElicitResult = ElicitResultSchema.pick({ action: true }).passthrough();

type SendRequest = RequestHandlerExtra<ServerRequest, ServerNotification>['sendRequest'];

/** A person may take their time: the SDK's 60-second default would cut them off. The call's own signal and timeout still end the wait. */
const ANSWER_TIMEOUT_MS = 60 * 60 * 1000;

/** `context.elicit` / `elicitUrl` / `sample` / `roots` of one request, asked on that request's own stream, as the client declared it can. */
export function inputSinks(server: Server, sendRequest: SendRequest): Pick<CallOptions, 'onElicit' | 'onSample' | 'onRoots'> {
  return {
    onElicit: async (request, signal) => {
      const params = keyed(elicitParams(server, request), request.key);
      const result = (await sendRequest({ method: 'elicitation/create', params } as ElicitRequest, RawElicitResult, {
        signal,
        timeout: ANSWER_TIMEOUT_MS,
      })) as { action: InputAnswer['action']; content?: unknown };
      return result.action === 'accept' ? { action: 'accept', content: result.content } : { action: result.action };
    },
    onSample: async (request, signal) => {
      if (!server.getClientCapabilities()?.sampling)
        throw new InputUnavailableError('sampling', 'the MCP client does not offer sampling', 'sampling');
      const ask = { method: 'sampling/createMessage', params: keyed(samplingParams(request), request.key) } as CreateMessageRequest;
      const result = (await sendRequest(ask, CreateMessageResultSchema, {
        signal,
        timeout: ANSWER_TIMEOUT_MS,
      })) as { content: SampleContent; model: string; stopReason?: string };
      return sampleResult(result);
    },
    onRoots: async (request, signal) => {
      if (!server.getClientCapabilities()?.roots) throw new InputUnavailableError('roots', 'the MCP client does not offer roots', 'roots');
      const ask = { method: 'roots/list', params: keyed({}, request.key) } as ListRootsRequest;
      const result = await sendRequest(ask, ListRootsResultSchema, { signal, timeout: ANSWER_TIMEOUT_MS });
      return result.roots.map((r): Root => (r.name === undefined ? { uri: r.uri } : { uri: r.uri, name: r.name }));
    },
  };
}

function keyed(params: Record<string, unknown>, key: string | undefined): Record<string, unknown> {
  return key === undefined ? params : { ...params, _meta: { [INPUT_KEY_META]: key } };
}

/** `elicitation/create`'s params, if the client declared the mode (an empty `elicitation: {}` is form only). */
function elicitParams(server: Server, request: InputRequest): Record<string, unknown> {
  const declared = server.getClientCapabilities()?.elicitation as { form?: object; url?: object } | undefined;
  if (!declared) throw new InputUnavailableError(request.mode, 'the MCP client does not support elicitation', 'elicitation');
  if (request.mode === 'url') {
    if (!declared.url) throw new InputUnavailableError('url', 'the MCP client does not support URL elicitation', 'elicitation');
    return { mode: 'url', message: request.message, url: request.url, elicitationId: randomUUID() };
  }
  if (!declared.form && Object.keys(declared).length > 0)
    throw new InputUnavailableError('form', 'the MCP client does not support form elicitation', 'elicitation');
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
