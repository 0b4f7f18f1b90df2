/**
 * The authorization-code provider's own rules (the flow itself runs against the conformance suite's
 * authorization servers in conformance-client.test.ts): tokens per owner in the store, the
 * callback's state checked, a refusal or a person who never comes back fails the call, never hangs it.
 */
import { AgentContext } from '../../src';
import { authorizationCode, MemoryOAuthStore, RemoteToolError, type AuthorizationCodeProvider } from '../../src/mcp-client';

const as = (userId: string) => new AgentContext({ sessionId: `s-${userId}`, userId });
const AUTHORIZE = new URL('https://auth.example.com/authorize?client_id=c');

function flow(redirect: (url: URL) => Promise<URL | string>, timeoutMs?: number) {
  const store = new MemoryOAuthStore();
  const oauth = authorizationCode({
    owner: (context) => context?.userId ?? 'app',
    redirectUrl: 'https://app.example.com/callback',
    redirect,
    store,
    timeoutMs,
  });
  return { store, oauth, provider: (userId: string) => oauth.provider(as(userId)) as AuthorizationCodeProvider };
}

it("keeps each owner's tokens, client and verifier apart, in the store", async () => {
  const { store, oauth, provider } = flow(async () => 'code');
  expect(oauth.identity(as('ada'))).toBe('ada');
  await provider('ada').saveTokens({ access_token: 'ada-token', token_type: 'Bearer' });
  await provider('ada').saveCodeVerifier('verifier');
  expect(await provider('ada').tokens()).toEqual({ access_token: 'ada-token', token_type: 'Bearer' });
  expect(await provider('grace').tokens()).toBeUndefined();
  expect(await provider('ada').codeVerifier()).toBe('verifier');
  await expect(provider('grace').codeVerifier()).rejects.toBeInstanceOf(RemoteToolError);
  await provider('ada').invalidateCredentials('tokens');
  expect(store.load('ada')).toEqual({ codeVerifier: 'verifier' });
  expect(provider('ada').clientMetadata).toMatchObject({
    redirect_uris: ['https://app.example.com/callback'],
    token_endpoint_auth_method: 'none',
  });
});

it('answers the code of a callback whose state is the one sent, and refuses another state or an error', async () => {
  let callback = '';
  const { provider } = flow(async () => callback);
  const ok = provider('ada');
  const state = ok.state();
  expect(ok.authorizationCode()).toBeUndefined(); // nobody was sent to authorize yet
  callback = `https://app.example.com/callback?code=abc&state=${state}`;
  ok.redirectToAuthorization(AUTHORIZE);
  await expect(ok.authorizationCode()).resolves.toBe('abc');

  const forged = provider('ada');
  forged.state();
  callback = 'https://app.example.com/callback?code=abc&state=someone-else';
  forged.redirectToAuthorization(AUTHORIZE);
  await expect(forged.authorizationCode()).rejects.toMatchObject({
    code: 'REMOTE_FAILED',
    final: true,
    message: expect.stringMatching(/state/),
  });

  const refused = provider('ada');
  refused.state();
  callback = 'https://app.example.com/callback?error=access_denied';
  refused.redirectToAuthorization(AUTHORIZE);
  await expect(refused.authorizationCode()).rejects.toMatchObject({ message: expect.stringMatching(/access_denied/) });
});

it('gives the redirect hook the authorization URL and the caller, and fails when the person never comes back', async () => {
  const seen: string[] = [];
  const { provider } = flow(async (url) => {
    seen.push(url.href);
    return new Promise<string>(() => undefined);
  }, 50);
  const p = provider('ada');
  p.redirectToAuthorization(AUTHORIZE);
  expect(seen).toEqual([AUTHORIZE.href]);
  await expect(p.authorizationCode()).rejects.toMatchObject({
    reason: 'unavailable',
    message: expect.stringMatching(/no authorization within 50 ms/),
  });
});

it('refuses a configuration without a redirect hook or an absolute redirect URL', () => {
  expect(() => authorizationCode({ owner: () => 'x', redirectUrl: '/callback', redirect: async () => 'c' })).toThrow(/redirectUrl/);
  expect(() => authorizationCode({ owner: () => 'x', redirectUrl: 'https://a/cb' } as never)).toThrow(/redirect/);
});
