import type { IncomingMessage, ServerResponse } from 'node:http';

/** An Express request (a node IncomingMessage) or a Fastify request (`raw` is the node one). */
export type PlatformRequest = IncomingMessage & { raw?: IncomingMessage; body?: unknown; user?: unknown };

/**
 * The node request and response under Nest's platform objects: Express's are node's own; Fastify's
 * wrap them (`raw`), and the reply is hijacked so Fastify sends nothing itself. The body the
 * platform parsed and the user a guard set are carried over to the node request.
 */
export function nodePair(req: PlatformRequest, res: unknown): [IncomingMessage, ServerResponse] {
  if (!req.raw) return [req, res as ServerResponse];
  const reply = res as { raw: ServerResponse; hijack(): void };
  reply.hijack();
  const raw = req.raw as PlatformRequest;
  if (req.body !== undefined) raw.body = req.body;
  if (req.user !== undefined) raw.user = req.user;
  return [raw, reply.raw];
}
