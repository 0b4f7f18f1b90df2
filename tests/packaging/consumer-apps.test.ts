/**
 * The package as users get it: `npm pack`, installed into brand-new CommonJS and ESM apps,
 * type-checked WITHOUT skipLibCheck, run. Item by item of what a newcomer hits first.
 */
import {
  INTEGRATIONS,
  REQUIRED,
  SNIPPET_TOOLS,
  buildAndPack,
  createApp,
  docSnippets,
  node,
  tsc,
  tsconfig,
  type Packed,
} from './consumer-app';
import { defaultSqliteDriver } from '../../src/stores/sqlite/open-driver';

/** A tool with an injected service, called through the registry: the README's first program. */
const TOOL = `import 'reflect-metadata';
import { IsString, MinLength } from 'class-validator';
import { Service } from 'typedi';
import { AgentContext, AgentMemory, Param, Tool, ToolRegistry, type ToolInterface } from 'toolwright';

class EchoInput {
  @Param({ description: 'Text to echo' })
  @IsString()
  @MinLength(1)
  text!: string;
}

@Service()
class Shout {
  apply(text: string): string {
    return text.toUpperCase();
  }
}

@Tool({ name: 'echo', description: 'Echo the text, loudly', input: EchoInput })
export class EchoTool implements ToolInterface<EchoInput> {
  constructor(private readonly shout: Shout) {}

  execute(args: EchoInput, context: AgentContext) {
    return { text: this.shout.apply(args.text), session: context.sessionId };
  }
}

export const registry = ToolRegistry.build({ tools: [EchoTool] });
export const session = { context: new AgentContext({ sessionId: 's-1', userId: 'u-1' }), memory: new AgentMemory({ agentName: 'app', userId: 'u-1' }) };
`;

/**
 * Required dependencies only: a tool call, the default store without better-sqlite3, and what got
 * loaded. The subpaths that need no optional peer are imported too, so their declarations must
 * type-check without any peer's types and loading them must load no peer.
 */
const MINIMAL_MAIN = `import { SqliteStore, ToolwrightError } from 'toolwright';
import { Agent, type AgentEvent } from 'toolwright/agent';
import { createChatHandler } from 'toolwright/ai-sdk-ui';
import { ScriptedModel, type ModelRequest } from 'toolwright/models';
import { toOpenAITool, type OpenAITool } from 'toolwright/providers';
import { InMemoryStore, PostgresStore, RedisStore, type SessionSnapshot } from 'toolwright/stores';
import { registry, session } from './tool.js';

export type PeerFreeTypes = [AgentEvent, ModelRequest, OpenAITool, SessionSnapshot];
export const peerFree = [Agent, createChatHandler, ScriptedModel, toOpenAITool, InMemoryStore, PostgresStore, RedisStore];

async function main(): Promise<void> {
  const result = await registry.call('echo', '{"text":"hi"}', session.context, session.memory);
  const store = await new SqliteStore({ path: ':memory:' }).loadSession({ sessionId: 's' }).then(
    () => 'loaded',
    (error: unknown) => (error instanceof ToolwrightError ? { code: error.code, message: error.message } : String(error)),
  );
  // The studio's code (and what it loads) is read only when a studio starts.
  const loaded = Object.keys(require.cache).filter((file) =>
    /node_modules[\\\\/](better-sqlite3|openai|@anthropic-ai|pg|ioredis|@opentelemetry|toolwright[\\\\/]dist[\\\\/]studio)[\\\\/]/.test(file),
  );
  process.stdout.write(JSON.stringify({ result: JSON.parse(result), store, loaded, studio: await studioServes() }));
}

/** The packed studio serves its page and API with the required dependencies only. */
async function studioServes(): Promise<unknown> {
  const { createStudio } = await import('toolwright/studio');
  const studio = await createStudio(registry);
  try {
    const auth = { authorization: \`Bearer \${studio.token}\` };
    const page = await fetch(studio.url);
    const app = await fetch(\`\${studio.origin}/app.js\`);
    const info = (await (await fetch(\`\${studio.origin}/api/info\`, { headers: auth })).json()) as { tools: number };
    return { page: page.status, html: (await page.text()).includes('toolwright studio'), app: app.status, tools: info.tools };
  } finally {
    await studio.close();
  }
}
void main();
`;

/** Every subpath, with the integration's own types and instances. */
const EVERYWHERE = (esm: boolean) => `import { DynamicStructuredTool, type StructuredToolInterface } from '@langchain/core/tools';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { FunctionTool } from '@openai/agents-core';
import type { ToolSet } from 'ai';
import { ToolwrightError } from 'toolwright';
import { toAiSdkTools } from 'toolwright/adapters/ai-sdk';
import { toLangChainTools } from 'toolwright/adapters/langchain';
import { toOpenAIAgentsTools } from 'toolwright/adapters/openai-agents';
import { createMcpServer } from 'toolwright/mcp';
import { Agent, type AgentEvent } from 'toolwright/agent';
import { ScriptedModel, type ModelRequest } from 'toolwright/models';
import { toOpenAITool, type OpenAITool } from 'toolwright/providers';
import { InMemoryStore, type SessionSnapshot } from 'toolwright/stores';
import { registry, session } from './tool.js';

/** The subpaths' types, as an integrator names them. */
export type SubpathTypes = [AgentEvent, ModelRequest, OpenAITool, SessionSnapshot];

async function main(): Promise<void> {
  const langchain: StructuredToolInterface[] = toLangChainTools(registry, { session });
  const aiSdk: ToolSet = toAiSdkTools(registry, { session });
  const agents: FunctionTool[] = toOpenAIAgentsTools(registry, { session });
  const server: Server = createMcpServer(registry, { sessionId: 'mcp-1' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'app', version: '1.0.0' });
  await client.connect(clientSide);
  const viaMcp = await client.callTool({ name: 'echo', arguments: { text: 'mcp' } });
  await client.close();
  let unknownTool: unknown;
  try {
    toLangChainTools(registry, { session, tools: ['nope'] });
  } catch (error) {
    unknownTool = error instanceof ToolwrightError ? error.code : 'not a ToolwrightError';
  }
  process.stdout.write(
    JSON.stringify({
      esm: ${esm ? 'true' : 'false'},
      langchainInstance: langchain[0] instanceof DynamicStructuredTool,
      viaLangChain: JSON.parse(String(await langchain[0].invoke({ text: 'lc' }))),
      aiSdk: Object.keys(aiSdk),
      agents: agents.map((t) => t.name),
      viaMcp: viaMcp.content,
      unknownTool,
      subpaths: [typeof Agent, typeof ScriptedModel, typeof toOpenAITool, new InMemoryStore() instanceof InMemoryStore],
    }),
  );
}
void main();
`;

// A fresh app's settings: target ES2022 means class fields with define semantics (useDefineForClassFields on).
const STRICT_APP = { strict: true, noImplicitOverride: true };

let packed: Packed;
beforeAll(() => {
  packed = buildAndPack();
}, 300_000);
afterAll(() => packed?.cleanup());

describe('packed and installed into a new app', () => {
  it('CommonJS app with only the required dependencies: types check without skipLibCheck, a tool runs, no native module or optional SDK is loaded, the default store runs where Node has node:sqlite', () => {
    const dir = createApp(packed, 'app-minimal', {
      type: 'commonjs',
      install: REQUIRED,
      files: {
        'tool.ts': TOOL,
        'main.ts': MINIMAL_MAIN,
        'tsconfig.json': tsconfig(STRICT_APP),
        // Older apps resolve through `main`/`types`/`typesVersions` instead of `exports`.
        'tsconfig.node10.json': tsconfig({ ...STRICT_APP, module: 'commonjs', moduleResolution: 'node10', noEmit: true }),
      },
    });
    expect(tsc(dir)).toBe('');
    expect(tsc(dir, 'tsconfig.node10.json')).toBe('');
    const run = node(dir, 'out/main.js');
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout);
    expect(out.result).toEqual({ text: 'HI', session: 's-1' });
    expect(out.loaded).toEqual([]);
    expect(out.studio).toEqual({ page: 200, html: true, app: 200, tools: 1 });
    if (defaultSqliteDriver() === 'node:sqlite') {
      // The default store without better-sqlite3 on a Node with node:sqlite: it just works, nothing native loaded.
      expect(out.store).toBe('loaded');
    } else {
      // The default store without better-sqlite3 on Node 20: the install command and the alternatives.
      expect(out.store.code).toBe('PEER_MISSING');
      expect(out.store.message).toContain('npm install better-sqlite3@12');
      expect(out.store.message).toContain('InMemoryStore');
    }
  }, 300_000);

  const { snippets } = docSnippets();

  it.each([
    ['module', true],
    ['commonjs', false],
  ] as const)(
    '%s app importing every subpath: the integrations type and behave as its own (instanceof, types), one toolwright instance; every TypeScript block of the docs compiles in it',
    (type, esm) => {
      const dir = createApp(packed, `app-${type}`, {
        type,
        install: [...REQUIRED, ...INTEGRATIONS],
        files: {
          'tool.ts': TOOL,
          'main.ts': EVERYWHERE(esm),
          'snippets/src/tools.ts': SNIPPET_TOOLS,
          ...Object.fromEntries(snippets.map((s) => [`snippets/${s.file}`, s.code])),
          // ESM apps commonly turn on verbatimModuleSyntax; a CommonJS app cannot.
          'tsconfig.json': tsconfig(esm ? { ...STRICT_APP, verbatimModuleSyntax: true } : STRICT_APP, ['*.ts', 'snippets/**/*.ts']),
        },
      });
      const diagnostics = tsc(dir)
        .split('\n')
        .filter((line) => line.trim() !== '')
        // A doc excerpt may await at top level (it stands for code inside a function); a whole program may not.
        .filter((line) => esm || !isTopLevelAwaitInExcerpt(line))
        .map((line) =>
          line.replace(
            /^snippets\/([\w.-]+)\((\d+),\d+\)/,
            (m, file: string) => `${snippets.find((s) => s.file === file)?.where ?? file} (${m})`,
          ),
        );
      expect(diagnostics).toEqual([]);
      const run = node(dir, 'out/main.js');
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toEqual({
        esm,
        langchainInstance: true,
        viaLangChain: { text: 'LC', session: 's-1' },
        aiSdk: ['echo'],
        agents: ['echo'],
        viaMcp: [{ type: 'text', text: JSON.stringify({ text: 'MCP', session: 'mcp-1' }) }],
        unknownTool: 'TOOL_NOT_FOUND',
        subpaths: ['function', 'function', 'function', true],
      });
    },
    300_000,
  );

  it("finds the docs' TypeScript blocks, the README's first tool among them as a whole program", () => {
    expect(snippets.length).toBeGreaterThan(15);
    expect(snippets.filter((s) => s.program).map((s) => s.where.split(':')[0])).toContain('README.md');
    // As a user imports it (`from 'toolwright'`), not from this repo's ./src; ./src/tools.js is the app's own module.
    expect(snippets.filter((s) => /from '(\.\.?\/)+src\/(?!tools\.js')/.test(s.code)).map((s) => s.where)).toEqual([]);
  });

  function isTopLevelAwaitInExcerpt(line: string): boolean {
    const match = /^snippets\/([\w.-]+)\(\d+,\d+\): error TS(1309|1375|1378|1431|1432):/.exec(line);
    return match !== null && snippets.find((s) => s.file === match[1])?.program === false;
  }
});
