import { ToolContent, type ContentPart } from '../content/tool-content';
import { errorText } from '../errors/errors';
import type { CallResult } from './connection';
import { RemoteToolError } from './remote-error';

/**
 * A `tools/call` result as the registry's tool result: content parts (checked as a local tool's
 * `ToolContent` is) with `structuredContent` as the structured value the output contract checks.
 * An `isError` result is a RemoteToolError carrying the server's text; a result over `maxBytes` is refused.
 */
export function toToolResult(result: CallResult, maxBytes: number): unknown {
  const size = jsonSize(result);
  if (size > maxBytes)
    throw new RemoteToolError('too_large', `The MCP server's result is too large (${size} bytes of JSON, at most ${maxBytes}).`);
  const content = Array.isArray(result.content) ? result.content : [];
  if (result.isError === true) throw new RemoteToolError('tool_error', errorMessage(content));
  const structured = result.structuredContent;
  if (structured !== undefined && (typeof structured !== 'object' || structured === null || Array.isArray(structured)))
    throw new RemoteToolError('protocol', 'The MCP server sent structuredContent that is not an object.');
  const parts = content.length > 0 ? content : structured !== undefined ? [{ type: 'text', text: JSON.stringify(structured) }] : [];
  if (parts.length === 0) return { content: [] };
  try {
    return ToolContent.of(parts as ContentPart[], structured === undefined ? {} : { structured: structured });
  } catch (error) {
    throw new RemoteToolError('protocol', `The MCP server sent content that cannot be passed on: ${errorText(error)}`, { cause: error });
  }
}

/** The server's error text (its text parts, bounded): written for the model, as MCP intends. */
function errorMessage(content: unknown[]): string {
  const text = content
    .map((part) => part as { type?: unknown; text?: unknown } | null)
    .filter((part) => part?.type === 'text' && typeof part.text === 'string')
    .map((part) => part!.text as string)
    .join('\n');
  const bounded = text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
  return bounded === '' ? 'The remote tool reported an error.' : bounded;
}

function jsonSize(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    throw new RemoteToolError('protocol', 'The MCP server sent a result that is not JSON.');
  }
}
