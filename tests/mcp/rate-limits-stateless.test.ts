/**
 * A rate limit held across replicas: two stateless MCP server processes on one real store, the
 * counts in the store (`store.rateCounters()`). Calls alternate between the processes, and a new
 * MCP session (a reconnect) of the same user meets the same count. Protocol 2026-07-28 requests
 * (no session at all) meet the same count, whichever process answers them.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { useStatelessPair } from '../support/stateless-pair';

const TOKENS = { 'token-alice': { userId: 'alice' }, 'token-bob': { userId: 'bob' }, 'token-carol': { userId: 'carol' } };

describe.each([
  ['Redis', 'redis' as const],
  ['PostgreSQL', 'postgres' as const],
])('a rate limit across two stateless MCP processes on one %s store', (_name, kind) => {
  const pair = useStatelessPair(kind, { tools: 'limited', tokens: TOKENS });

  /** 'ok', or the refusal's code with retryAfter. */
  async function call(client: Client): Promise<string> {
    const result = (await client.callTool({ name: 'limited_echo', arguments: { text: 'x' } })) as CallToolResult;
    if (!result.isError) return 'ok';
    const body = JSON.parse((result.content[0] as { text: string }).text) as { code: string; retryAfter?: number };
    return body.retryAfter !== undefined && body.retryAfter > 0 ? body.code : `${body.code} without retryAfter`;
  }

  it('allows three calls an hour per user whichever process serves them, and a reconnect does not reset the count', async () => {
    const alice = await pair.connect('token-alice');
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await call(alice.client));
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'RATE_LIMITED', 'RATE_LIMITED']);
    expect(new Set(alice.served)).toEqual(new Set(pair.urls));
    await alice.client.close();
    const again = await pair.connect('token-alice');
    expect(await call(again.client)).toBe('RATE_LIMITED');
    await again.client.close();
    // Another user has a count of their own.
    const bob = await pair.connect('token-bob');
    expect(await call(bob.client)).toBe('ok');
    await bob.client.close();
  });

  it('counts 2026-07-28 calls (no session) in the same store, alternating between the processes', async () => {
    const outcomes: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await fetch(pair.urls[i % 2], {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: 'Bearer token-carol',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'limited_echo',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: {
            name: 'limited_echo',
            arguments: { text: 'x' },
            _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
          },
        }),
      });
      const result = ((await res.json()) as { result: CallToolResult }).result;
      const body = JSON.parse((result.content[0] as { text: string }).text) as { code?: string; pid?: number };
      outcomes.push(result.isError ? (body.code ?? 'error') : 'ok');
    }
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'RATE_LIMITED', 'RATE_LIMITED']);
  });
});
