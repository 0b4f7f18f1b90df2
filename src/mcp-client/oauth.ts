import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { ToolwrightConfigError } from '../errors/errors';
import type { AgentContext } from '../session/agent-context';
import { RemoteToolError } from './remote-error';

/** What one token owner's OAuth flow keeps between connections (and, in your store, between processes). */
export interface OAuthSession {
  tokens?: OAuthTokens;
  /** The client registered with the authorization server (dynamically, or given). */
  client?: OAuthClientInformationMixed;
  codeVerifier?: string;
}

/** Where each owner's tokens live: keep them in your database (encrypted) to survive restarts. */
export interface OAuthStore {
  load(owner: string): OAuthSession | undefined | Promise<OAuthSession | undefined>;
  save(owner: string, session: OAuthSession): void | Promise<void>;
}

/** Tokens in this process's memory only (a restart asks every person again). */
export class MemoryOAuthStore implements OAuthStore {
  private readonly sessions = new Map<string, OAuthSession>();
  load(owner: string): OAuthSession | undefined {
    return this.sessions.get(owner);
  }
  save(owner: string, session: OAuthSession): void {
    this.sessions.set(owner, { ...session });
  }
}

export interface AuthorizationCodeOptions {
  /** Whose tokens a caller uses (a user, a tenant's user): owners never share tokens or a connection. */
  owner: (context: AgentContext | undefined) => string;
  /** Your callback URL, registered with the authorization server. */
  redirectUrl: string;
  /**
   * Sends the person to `authorizationUrl` (a link in the chat, `context.elicitUrl`, a browser) and
   * answers what came back to `redirectUrl`: the whole callback URL (its `state` is checked) or the code.
   */
  redirect: (authorizationUrl: URL, context: AgentContext | undefined) => Promise<URL | string>;
  store?: OAuthStore;
  /** How long `redirect` may take before the call fails as unavailable (5 minutes). */
  timeoutMs?: number;
  clientName?: string;
  scope?: string;
  /** A client registered in advance; else the SDK registers one (or uses `clientMetadataUrl`). */
  client?: { client_id: string; client_secret?: string };
  /** A client ID metadata document URL (CIMD), where the server supports it. */
  clientMetadataUrl?: string;
}

/**
 * OAuth 2.1 authorization code with PKCE for `McpToolset.http({ oauth: authorizationCode({...}) })`.
 * The MCP SDK does discovery, PKCE, resource indicators, registration and refresh; this keeps each
 * owner's tokens in `store` and asks your `redirect` hook for the person's consent when no token works.
 */
export function authorizationCode(options: AuthorizationCodeOptions): {
  identity: (context: AgentContext | undefined) => string;
  provider: (context: AgentContext | undefined) => OAuthClientProvider;
} {
  if (typeof options?.redirect !== 'function' || !URL.canParse(options.redirectUrl))
    throw new ToolwrightConfigError('authorizationCode: `redirect` (a function) and an absolute `redirectUrl` are required.');
  const store = options.store ?? new MemoryOAuthStore();
  return {
    identity: options.owner,
    provider: (context) => new AuthorizationCodeProvider(options, store, String(options.owner(context)), context),
  };
}

/** One owner's provider for one connection (the SDK's `OAuthClientProvider`). */
export class AuthorizationCodeProvider implements OAuthClientProvider {
  private expectedState?: string;
  private pending?: Promise<URL | string>;
  readonly clientMetadataUrl?: string;

  constructor(
    private readonly options: AuthorizationCodeOptions,
    private readonly store: OAuthStore,
    private readonly owner: string,
    private readonly context: AgentContext | undefined,
  ) {
    this.clientMetadataUrl = options.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.clientName ?? 'toolwright',
      redirect_uris: [this.options.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.options.client?.client_secret ? 'client_secret_basic' : 'none',
      ...(this.options.scope !== undefined && { scope: this.options.scope }),
    };
  }

  state(): string {
    this.expectedState = randomBytes(16).toString('base64url');
    return this.expectedState;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    return this.options.client ?? (await this.session()).client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.update({ client });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.session()).tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.update({ tokens, codeVerifier: undefined });
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.pending = this.options.redirect(authorizationUrl, this.context);
    // Read by `authorizationCode()`; a hook that fails before that is not an unhandled rejection.
    this.pending.catch(() => undefined);
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    await this.update({ codeVerifier });
  }

  async codeVerifier(): Promise<string> {
    const verifier = (await this.session()).codeVerifier;
    if (verifier === undefined) throw new RemoteToolError('unavailable', 'OAuth: no PKCE code verifier was saved for this owner.');
    return verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'all') await this.store.save(this.owner, {});
    if (scope === 'client') await this.update({ client: undefined });
    if (scope === 'tokens') await this.update({ tokens: undefined });
    if (scope === 'verifier') await this.update({ codeVerifier: undefined });
  }

  /**
   * The code the person's consent gave, once `redirectToAuthorization` ran (undefined otherwise):
   * bounded by `timeoutMs`, and refused when the callback's `state` is not the one sent.
   */
  authorizationCode(): Promise<string> | undefined {
    const pending = this.pending;
    if (pending === undefined) return undefined;
    this.pending = undefined;
    const ms = this.options.timeoutMs ?? 300_000;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new RemoteToolError('unavailable', `OAuth: no authorization within ${ms} ms.`, { final: true })), ms);
      timer.unref();
    });
    return Promise.race([pending, late])
      .then((answer) => this.codeOf(answer))
      .finally(() => clearTimeout(timer));
  }

  private codeOf(answer: URL | string): string {
    if (typeof answer === 'string' && !URL.canParse(answer)) return answer;
    const url = new URL(answer);
    const code = url.searchParams.get('code');
    const error = url.searchParams.get('error');
    if (error !== null || code === null)
      throw new RemoteToolError('unavailable', `OAuth: the authorization was refused (${(error ?? 'no code').slice(0, 100)}).`, {
        final: true,
      });
    if (this.expectedState !== undefined && url.searchParams.get('state') !== this.expectedState)
      throw new RemoteToolError('unavailable', 'OAuth: the callback state does not match the request (refused).', { final: true });
    return code;
  }

  private async session(): Promise<OAuthSession> {
    return (await this.store.load(this.owner)) ?? {};
  }

  private async update(change: Partial<OAuthSession>): Promise<void> {
    await this.store.save(this.owner, { ...(await this.session()), ...change });
  }
}
