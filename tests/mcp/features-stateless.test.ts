/**
 * Resources, prompts and completions on stateless MCP: two server processes on one real store,
 * one SDK client whose requests alternate between them. What a read writes to the session on one
 * process is what the next read sees on the other; identity (a bearer token) gates both alike;
 * subscriptions are not offered, since no server outlives its request.
 */
import { ErrorCode, EmptyResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { useStatelessPair } from '../support/stateless-pair';

const TOKENS = { 'token-alice': { userId: 'alice' }, 'token-root': { userId: 'root' } };

describe.each([
  ['Redis', 'redis' as const],
  ['PostgreSQL', 'postgres' as const],
])('stateless MCP resources and prompts: two processes on one %s store', (_name, kind) => {
  const pair = useStatelessPair(kind, { tools: 'features', tokens: TOKENS });

  const textOf = (read: { contents: unknown[] }) => JSON.parse((read.contents[0] as { text: string }).text) as Record<string, unknown>;

  it("serves one session's reads, prompts and completions from either process, with one shared state", async () => {
    const { client, served } = await pair.connect('token-alice');
    try {
      expect(client.getServerCapabilities()?.resources).toEqual({});
      const reads = [];
      for (const noteId of ['n1', 'n2', 'n3', 'n4'])
        reads.push(textOf(await client.readResource({ uri: `notes://alice/${noteId}` })).reads);
      expect(reads).toEqual([1, 2, 3, 4]);
      expect(new Set(served)).toEqual(new Set(pair.urls));
      expect((await client.listResources()).resources.map((r) => r.name)).toEqual(['readme', 'logo', 'fails']);
      await expect(client.getPrompt({ name: 'summarize', arguments: { topic: 'release' } })).resolves.toMatchObject({
        messages: [{ content: { text: 'Summarize release (short).' } }, expect.anything()],
      });
      await expect(
        client.complete({ ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'topic', value: 'b' } }),
      ).resolves.toMatchObject({
        completion: { values: ['billing', 'bugs', 'build'] },
      });
      const invalid = (await client.getPrompt({ name: 'summarize', arguments: { topic: '' } }).catch((e: unknown) => e)) as McpError;
      expect(invalid.code).toBe(ErrorCode.InvalidParams);
      // No subscriptions here: the method is not offered.
      const subscribe = (await client
        .request({ method: 'resources/subscribe', params: { uri: 'notes://readme' } }, EmptyResultSchema)
        .catch((e: unknown) => e)) as McpError;
      expect(subscribe.code).toBe(ErrorCode.MethodNotFound);
    } finally {
      await client.close();
    }
  });

  it('gates by the identity of each request, on both processes', async () => {
    const alice = await pair.connect('token-alice');
    const root = await pair.connect('token-root');
    try {
      for (let i = 0; i < 2; i++) {
        const hidden = (await alice.client.readResource({ uri: 'notes://admin' }).catch((e: unknown) => e)) as McpError;
        expect(hidden.code).toBe(-32002);
        await expect(root.client.readResource({ uri: 'notes://admin' })).resolves.toMatchObject({ contents: [{ text: 'root only' }] });
      }
      expect((await alice.client.listPrompts()).prompts.map((p) => p.name)).not.toContain('admin_prompt');
      expect((await root.client.listPrompts()).prompts.map((p) => p.name)).toContain('admin_prompt');
      expect(new Set([...alice.served, ...root.served])).toEqual(new Set(pair.urls));
    } finally {
      await alice.client.close();
      await root.client.close();
    }
  });
});
