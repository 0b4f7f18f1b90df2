import type { IncomingMessage } from 'node:http';
import type { ToolRegistry } from '../../registry/tool-registry';
import { decodeHeaderValue, HEADER_MISMATCH, trimmed, type ModernMessage, type Refusal } from './era';

/**
 * SEP-2243: the arguments a tool mirrors in `Mcp-Param-<name>` headers (`@Param({ mcpHeader })`)
 * must say in the header what the body says, or the request is refused (400, -32020) before it
 * runs: a gateway that routed on the header must not have been shown something else. A header
 * value is literal unless wrapped as `=?base64?...?=`, which must then be valid Base64 (UTF-8).
 */
export function paramHeaderRefusal(req: IncomingMessage, message: ModernMessage, registry: ToolRegistry): Refusal | undefined {
  if (message.method !== 'tools/call' || message.id === undefined) return undefined;
  const params = message.params!;
  const name = params.name;
  if (typeof name !== 'string' || !registry.has(name)) return undefined;
  const headers = registry.describe(name).mcpHeaders;
  if (!headers) return undefined;
  const args = params.arguments !== null && typeof params.arguments === 'object' ? (params.arguments as Record<string, unknown>) : {};
  for (const [argument, header] of Object.entries(headers)) {
    const field = `Mcp-Param-${header}`;
    const raw = req.headers[field.toLowerCase()];
    const sent = trimmed(Array.isArray(raw) ? raw.join(', ') : raw);
    const value = Object.hasOwn(args, argument) ? args[argument] : undefined;
    const body = headerForm(value);
    if (sent === undefined) {
      if (body !== undefined) return refusal(message.id, field, `arguments.${argument} is set but the ${field} header is missing`);
      continue;
    }
    const decoded = decodeHeaderValue(sent);
    if (decoded === undefined) return refusal(message.id, field, `the ${field} header has an invalid Base64 value`);
    if (decoded !== body)
      return refusal(
        message.id,
        field,
        `arguments.${argument} is ${JSON.stringify(body ?? null)} but the ${field} header says ${JSON.stringify(decoded)}`,
      );
  }
  return undefined;
}

function refusal(id: string | number, header: string, body: string): Refusal {
  return {
    status: 400,
    code: HEADER_MISMATCH,
    message: `Bad Request: the request headers and body disagree: ${body}.`,
    data: { mismatch: { header, body } },
    id,
  };
}

/** A primitive argument as the client writes it in the header; anything else never matches a header. */
function headerForm(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return value === undefined || value === null ? undefined : JSON.stringify(value);
}
