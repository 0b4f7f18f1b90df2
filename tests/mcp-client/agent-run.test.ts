/**
 * One Agent run with local decorated tools and remote MCP tools together (server-filesystem over
 * stdio), pausing for an approval on a remote tool and resuming, on SQLite and PostgreSQL.
 */
import 'reflect-metadata';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IsString } from 'class-validator';
import { Agent, AgentContext, Param, ScriptedModel, Tool, ToolRegistry, type Message, type ToolInterface } from '../../src';
import { PostgresStore, SqliteStore, type SessionStore } from '../../src/stores';
import { McpToolset } from '../../src/mcp-client';
import { SERVER } from '../support/remote-servers';
import { useServers } from '../support/use-servers';

const servers = useServers('tw-remote-agent-');

class Topic {
  @Param({ description: 'What to note' })
  @IsString()
  topic!: string;
}

@Tool({ name: 'remember_topic', description: 'Keeps the topic in the session', input: Topic })
class RememberTopic implements ToolInterface<Topic> {
  execute({ topic }: Topic, context: AgentContext) {
    context.setState('topic', topic);
    return { kept: topic };
  }
}

const lastTool = (messages: readonly Message[]) => [...messages].reverse().find((m) => m.role === 'tool') as { content: string };

let files: string;
let registry: ToolRegistry;
beforeAll(async () => {
  files = realpathSync(mkdtempSync(join(tmpdir(), 'tw-remote-files-')));
  writeFileSync(join(files, 'brief.txt'), 'ship on friday');
  registry = await ToolRegistry.buildAsync({
    tools: [RememberTopic],
    mcp: [McpToolset.stdio({ name: 'fs', command: process.execPath, args: [SERVER.filesystem, files], prefix: 'fs_' })],
  });
}, 30_000);
afterAll(async () => {
  await registry.close();
  rmSync(files, { recursive: true, force: true });
});

const STORES: Array<[string, () => SessionStore]> = [
  ['SQLite', () => new SqliteStore({ path: join(servers.dir, 'agent.db') })],
  ['PostgreSQL', () => new PostgresStore({ connectionString: servers.postgres.connectionString, schema: 'tw_remote' })],
];

describe.each(STORES)('an Agent run with local and remote tools (%s)', (_, makeStore) => {
  it('runs both, pauses for the remote write, and writes once approved', async () => {
    const store = makeStore();
    const target = join(files, `plan-${_}.txt`);
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: 'c-note', name: 'remember_topic', arguments: { topic: 'release' } },
          { id: 'c-read', name: 'fs_read_text_file', arguments: { path: join(files, 'brief.txt') } },
        ],
      },
      (request) => {
        expect(request.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['remember_topic', 'fs_read_text_file', 'fs_write_file']));
        expect(lastTool(request.messages).content).toContain('ship on friday');
        return { toolCalls: [{ id: 'c-write', name: 'fs_write_file', arguments: { path: target, content: 'release friday' } }] };
      },
      (request) => ({ text: `done: ${lastTool(request.messages).content}` }),
    ]);
    const agent = new Agent({ name: 'planner', model, tools: registry, store });
    const who = { sessionId: `s-${_}`, userId: 'u-1' };
    try {
      const paused = await agent.run('plan the release', who);
      expect(paused.status).toBe('paused');
      expect(paused.approvals.map((a) => [a.toolCallId, a.name])).toEqual([['c-write', 'fs_write_file']]);
      expect(() => readFileSync(target)).toThrow();

      const done = await agent.approve(who, 'c-write');
      expect(done.status).toBe('completed');
      expect(done.output).toMatch(/^done: .*Successfully wrote/);
      expect(readFileSync(target, 'utf8')).toBe('release friday');
      // The local tool's state write was saved with the run.
      expect((await store.loadSession({ sessionId: who.sessionId }))?.state.topic).toBe('release');
    } finally {
      await store.close();
    }
  });
});
