import { ToolDefinitionError } from '../errors/errors';
import { RateLimitedError } from '../errors/rate-limited-error';
import type { RateLimit } from '../metadata/types';
import type { RateCounters } from '../side-effects/rate-counters';
import type { AgentContext } from '../session/agent-context';

/** One rule of a tool, with the counter key prefix that keeps it apart from every other rule. */
export interface RateRule extends RateLimit {
  readonly scope: string;
}

/** The tool's own rules and the registry's (each tool counted apart), checked at build. */
export function rateRules(toolName: string, own: RateLimit | readonly RateLimit[] | undefined, shared: readonly RateLimit[]): RateRule[] {
  const list = own === undefined ? [] : Array.isArray(own) ? (own as readonly RateLimit[]) : [own as RateLimit];
  return [...list, ...shared].map((rule, i) => {
    if (!Number.isSafeInteger(rule.windowMs) || rule.windowMs <= 0) {
      throw new ToolDefinitionError(`Tool "${toolName}": rateLimit windowMs must be a positive integer (got ${String(rule.windowMs)}).`);
    }
    if (typeof rule.limit !== 'function' && !(Number.isSafeInteger(rule.limit) && rule.limit >= 0)) {
      throw new ToolDefinitionError(
        `Tool "${toolName}": rateLimit limit must be a whole number ≥ 0 or a function (got ${String(rule.limit)}).`,
      );
    }
    return Object.freeze({ ...rule, scope: `${toolName}#${i}` });
  });
}

/** Whose count a call adds to: the caller's tenant and user by default (JSON, so no two callers share a key). */
function principal(rule: RateLimit, context: AgentContext): string {
  const per = rule.per ?? 'user';
  if (typeof per === 'function') return `k:${per(context)}`;
  if (per === 'global') return 'g';
  if (per === 'session') return `s:${JSON.stringify([context.tenantId ?? null, context.sessionId])}`;
  if (per === 'tenant') return `t:${JSON.stringify(context.tenantId ?? null)}`;
  return `u:${JSON.stringify([context.tenantId ?? null, context.userId ?? null])}`;
}

/**
 * Counts the call against each rule and refuses it (RATE_LIMITED) when any is over, with the
 * longest wait among those. A refused call counts too: a client that keeps calling stays refused
 * until the window ends, and never pushes the window further.
 */
export async function throttle(toolName: string, rules: readonly RateRule[], counters: RateCounters, context: AgentContext): Promise<void> {
  let refused: RateLimitedError | undefined;
  for (const rule of rules) {
    const limit = typeof rule.limit === 'function' ? await rule.limit(context) : rule.limit;
    const { count, resetMs } = await counters.hit(`${rule.scope}:${principal(rule, context)}`, rule.windowMs);
    if (count > limit && (refused === undefined || resetMs > refused.retryAfterMs)) {
      refused = new RateLimitedError(toolName, resetMs, limit, rule.windowMs);
    }
  }
  if (refused) throw refused;
}
