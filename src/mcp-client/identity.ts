import { createHash } from 'node:crypto';
import type { AgentContext } from '../session/agent-context';
import type { CredentialResolver } from './toolset-options';

/** One caller's credentials and the pool key they make: equal credentials share a connection, different ones never do. */
export interface Identity {
  key: string;
  values?: Record<string, string>;
  /** Makes this identity's OAuth provider (on the connection's first dial). */
  oauth?: () => unknown;
}

interface OAuthOption {
  identity: (context: AgentContext | undefined) => string;
  provider: (context: AgentContext | undefined) => unknown;
}

/** The credentials' identity, and with OAuth whose tokens (a separate connection per token owner). */
export async function identityOf(
  resolver: Record<string, string> | CredentialResolver | undefined,
  context: AgentContext | undefined,
  oauth?: OAuthOption,
): Promise<Identity> {
  const base = await headerIdentity(resolver, context);
  if (!oauth) return base;
  const owner = digest(['oauth', String(oauth.identity(context))]);
  return { ...base, key: digest([base.key, owner]), oauth: () => oauth.provider(context) };
}

const digest = (value: unknown): string => createHash('sha256').update(JSON.stringify(value)).digest('hex');

async function headerIdentity(
  resolver: Record<string, string> | CredentialResolver | undefined,
  context: AgentContext | undefined,
): Promise<Identity> {
  const values = typeof resolver === 'function' ? await resolver(context) : resolver;
  if (values === undefined || Object.keys(values).length === 0) return { key: 'anonymous' };
  if (typeof values !== 'object') throw new TypeError('a credential resolver must answer an object of strings');
  const sorted = Object.entries(values)
    .map(([k, v]) => [k.toLowerCase(), String(v)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // A digest, so that no credential is kept as a map key in plain text.
  return { key: digest(sorted), values: { ...values } };
}
