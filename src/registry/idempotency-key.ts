import { createHash } from 'node:crypto';
import type { AgentContext } from '../session/agent-context';

/**
 * The key a tool sees on `context.toolCall.idempotencyKey`: stable across retries and resumes of the
 * same model call (tenant, session and logical call id); opaque, so it leaks no ids.
 */
export function idempotencyKey(context: AgentContext, logicalCallId: string): string {
  return createHash('sha256')
    .update(`${context.tenantId ?? ''}\u0000${context.sessionId}\u0000${logicalCallId}`)
    .digest('hex')
    .slice(0, 32);
}
