/**
 * The Tools page's API: the tools the chosen identity may see, each with the schema every provider
 * is told (and why strict modes fell back), and one call of a tool through `registry.call`, with
 * the same gate, validation, approval and rate limits as every other surface.
 */
import { randomUUID } from 'node:crypto';
import { ToolInputError, ToolwrightError } from '../errors/errors';
import { AgentContext } from '../session/agent-context';
import { AgentMemory } from '../session/agent-memory';
import type { StudioAnswer, StudioContext, StudioIdentity, StudioPageApi, StudioRequest } from './routes';
import { describeTool } from './tools-schemas';

/** Answer statuses for the call errors the page shows itself (the rest go to the server's table). */
const CALL_STATUS: Readonly<Record<string, number>> = {
  TOOL_NOT_FOUND: 404,
  INVALID_JSON: 400,
  INVALID_ARGUMENTS: 422,
  APPROVAL_REQUIRED: 409,
  RATE_LIMITED: 429,
  TOOL_TIMEOUT: 504,
  TOOL_FAILED: 502,
  INVALID_OUTPUT: 502,
};

export function toolsPage(context: StudioContext): StudioPageApi {
  const { registry } = context;
  return {
    routes: [
      {
        method: 'GET',
        path: '/api/tools',
        handle: async (request) => {
          const visible = await registry.visible(contextOf(request.identity, 'studio-list'));
          return { json: { tools: visible.map(describeTool) } };
        },
      },
      {
        method: 'POST',
        path: '/api/tools/:name/call',
        handle: (request) => callTool(context, request),
      },
    ],
  };
}

function contextOf(identity: StudioIdentity, sessionId: string): AgentContext {
  return new AgentContext({ sessionId, userId: identity.userId, tenantId: identity.tenantId });
}

async function callTool({ registry }: StudioContext, request: StudioRequest): Promise<StudioAnswer> {
  const body = request.body;
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body)))
    throw new ToolwrightError('INVALID_REQUEST', 'The body is a JSON object: { "args": { ... } }.');
  const args = (body as { args?: unknown } | undefined)?.args ?? {};
  if (args === null || typeof args !== 'object' || Array.isArray(args))
    throw new ToolwrightError('INVALID_REQUEST', '"args" is a JSON object of the tool\'s arguments.');
  const { identity } = request;
  // As `toolwright call` does: a fresh session a call, the caller's memory (not loaded from a store).
  const callId = `studio-${randomUUID()}`;
  const context = contextOf(identity, callId);
  const memory = new AgentMemory({ agentName: 'studio', userId: identity.userId, tenantId: identity.tenantId });
  try {
    const result = await registry.call(request.params.name, args, context, memory, { toolCallId: callId });
    return { json: { result: parseResult(result) } };
  } catch (error) {
    if (!(error instanceof ToolwrightError) || CALL_STATUS[error.code] === undefined) throw error;
    const answer: Record<string, unknown> = { code: error.code, message: error.message };
    if (error instanceof ToolInputError) {
      answer.errors = error.errors;
      if (error.omitted > 0) answer.omitted = error.omitted;
    }
    const retryAfter = (error as { retryAfter?: unknown }).retryAfter;
    if (typeof retryAfter === 'number') answer.retryAfter = retryAfter;
    // The developer sees the whole message; the model would be told this (a tool's own failure redacted).
    answer.modelSees = parseResult(error.toToolResult());
    return { status: CALL_STATUS[error.code], json: { error: answer } };
  }
}

/** The result as JSON when it is JSON (it always is for a class tool), else the text itself. */
function parseResult(result: string): unknown {
  try {
    return JSON.parse(result) as unknown;
  } catch {
    return result;
  }
}
