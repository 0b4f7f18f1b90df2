import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { encodeToolError } from '../errors/errors';

/**
 * What an MCP client gets while the store is down, on every transport: a tools/call answers a
 * tool result (`isError`, code STORE_UNAVAILABLE), so the model reads "try again later" as it
 * would any tool error; a request that has no tool result to carry it (tools/list, initialize,
 * DELETE) gets a JSON-RPC error whose `data.code` is STORE_UNAVAILABLE, over HTTP with 503 and
 * `Retry-After` when the answer is still ours to give (stateless: the session record is read first).
 */
export const STORE_UNAVAILABLE_MESSAGE = 'Session storage is unavailable; try again later.';

/** JSON-RPC "server error" range, as serveHttp's other 503 (too many sessions). */
export const STORE_UNAVAILABLE_RPC_CODE = -32000;

/** Seconds a client is told to wait (Retry-After) before trying again. */
export const STORE_RETRY_AFTER_SECONDS = 5;

export function storeUnavailableResult(): CallToolResult {
  return { content: [{ type: 'text', text: encodeToolError('STORE_UNAVAILABLE', STORE_UNAVAILABLE_MESSAGE) }], isError: true };
}

export function storeUnavailableRpcError(): McpError {
  return new McpError(STORE_UNAVAILABLE_RPC_CODE, STORE_UNAVAILABLE_MESSAGE, { code: 'STORE_UNAVAILABLE' });
}
