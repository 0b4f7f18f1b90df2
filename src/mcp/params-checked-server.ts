import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AnyObjectSchema, SchemaOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import {
  ErrorCode,
  McpError,
  type Notification,
  type Request,
  type Result,
  type ServerNotification,
  type ServerRequest,
  type ServerResult,
} from '@modelcontextprotocol/sdk/types.js';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { z } from 'zod';

/** Schemas that match a request by its method alone (one a method, shared by every session's Server). */
const methodOnly = new Map<string, AnyObjectSchema>();

/**
 * A Server whose requests with params their schema refuses get -32602 (Invalid params), as JSON-RPC
 * says. The SDK parses a request with its handler's schema before the handler runs and answers a
 * failure -32603 (Internal error) with the validation dump. Every handler, the SDK's own
 * `initialize` and `ping` included (registered from its constructors), is registered under its
 * method alone and checks its params here. `tools/call` is left to the SDK, which checks it the same way.
 */
export class ParamsCheckedServer extends Server {
  override setRequestHandler<T extends AnyObjectSchema>(
    schema: T,
    handler: (
      request: SchemaOutput<T>,
      extra: RequestHandlerExtra<ServerRequest | Request, ServerNotification | Notification>,
    ) => ServerResult | Result | Promise<ServerResult | Result>,
  ): void {
    const method = (schema as unknown as z.ZodObject<{ method: z.ZodLiteral<string> }>).shape.method.value;
    if (method === 'tools/call') return super.setRequestHandler(schema, handler);
    let byMethod = methodOnly.get(method);
    if (!byMethod) methodOnly.set(method, (byMethod = z.object({ method: z.literal(method) }).passthrough()));
    const full = schema as unknown as z.ZodType<SchemaOutput<T>>;
    super.setRequestHandler(byMethod, (request, extra) => {
      // The SDK's parse drops a `__proto__` key without a word: the handler would run on other arguments than were sent.
      if (hasPrototypeKey(request.params, 0))
        throw new McpError(ErrorCode.InvalidParams, `Invalid ${method} request: "__proto__" is not an accepted key.`);
      const parsed = full.safeParse(request);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue?.path.length ? ` at ${issue.path.map(String).join('.')}` : ''; // as stdio.ts: a path may hold symbols
        throw new McpError(ErrorCode.InvalidParams, `Invalid ${method} request${where}: ${issue?.message ?? 'refused'}`);
      }
      if (method === 'initialize') {
        // One session, one initialize (the stateful HTTP transport refuses it the same way).
        if (initialized.has(this)) throw new McpError(ErrorCode.InvalidRequest, 'Invalid Request: Server already initialized');
        initialized.add(this);
      }
      return handler(parsed.data, extra);
    });
  }
}

/** An own `__proto__` key in the params, looked for as deep as MCP's params go (arguments, ref, context). */
function hasPrototypeKey(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object' || depth > 3) return false;
  if (Object.prototype.hasOwnProperty.call(value, '__proto__')) return true;
  return Object.values(value).some((v) => hasPrototypeKey(v, depth + 1));
}

/** Servers that answered their initialize (module-level: the SDK registers handlers before subclass fields exist). */
const initialized = new WeakSet<Server>();

let sharedAjv: Ajv | undefined;

/**
 * One JSON Schema validator for every session's Server (the SDK builds an Ajv per Server, a good
 * part of session setup). The SDK uses it only for elicitation schemas; each is compiled once and
 * removed from Ajv's cache, so the shared instance does not grow with sessions.
 */
export const sharedValidator: jsonSchemaValidator = {
  getValidator(schema) {
    const ajv = (sharedAjv ??= addFormats(new Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true })));
    const validate = ajv.compile(schema as object);
    ajv.removeSchema(schema);
    return (input) =>
      validate(input)
        ? { valid: true, data: input as never, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: ajv.errorsText(validate.errors) };
  },
};
