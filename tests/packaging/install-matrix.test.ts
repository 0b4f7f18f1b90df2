/**
 * The install matrix (issue 22, item 1): the packed package installed with a plain `npm install`
 * (no --force, no --legacy-peer-deps) into a new app per row — every integration at the oldest
 * version its peer range allows, then every integration at its newest release — and each
 * integration driven inside its host's own loop with a fake model by tests/packaging/matrix/drive.mjs:
 * a valid call, an invalid one (INVALID_ARGUMENTS), and a tool that needs approval, through the
 * host's own approval flow. The newest row needs Node 22 (ai 7, @ai-sdk/react 4, openai 7,
 * better-sqlite3 13); on Node 20 it installs and runs on Node 24 from .ci/node24.sh.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import semver from 'semver';
import { ROOT, buildAndPack, tsc, type Packed } from './consumer-app';
import { COMPANIONS, ROWS, type MatrixRow } from './matrix/rows';

const MATRIX = join(__dirname, 'matrix');
const CACHE = join(ROOT, '.ci/cache/npm-matrix');
const PEERS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> })
  .peerDependencies;
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** The same tool, approval answer and MCP/ai-sdk-ui results in every row (the tools of matrix/tools.ts). */
const LOOKUP = (session: string) => ({ order_id: 'A-1', status: 'shipped', session });
const REFUNDED = { status: 'refunded', order_id: 'A-1', amount_cents: 500 };

let packed: Packed;
beforeAll(() => {
  packed = buildAndPack();
}, 300_000);
afterAll(() => packed?.cleanup());

/** The Node a row runs on: this one when new enough, else Node 24 (installed from the npm registry). */
function nodeFor(row: MatrixRow): string {
  if (NODE_MAJOR >= row.minNode) return process.execPath;
  return execFileSync('bash', [join(ROOT, '.ci/node24.sh')], { encoding: 'utf8' }).trim();
}

/**
 * The environment of a row's npm and node: its Node first on PATH and, where that Node ships its
 * headers, native addons (better-sqlite3 12 has no prebuilt binary reachable here) built against them.
 */
function envFor(node: string): NodeJS.ProcessEnv {
  // Not jest's or an outer `npm test`'s npm_* settings: the app's install is a user's plain `npm install`.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  const root = dirname(dirname(node));
  const headers = existsSync(join(root, 'include/node/node.h')) ? { npm_config_nodedir: root } : {};
  return { ...env, ...headers, PATH: `${dirname(node)}:${env.PATH ?? ''}` };
}

/**
 * Every integration's types beside toolwright's, strict and without skipLibCheck: the declarations
 * type-check against this row's versions (ai 7 also with its own `toolApproval` option).
 */
const TYPES = (aiMajor: number) => `import { generateText, streamText, type ToolSet } from 'ai';
import { ${aiMajor >= 7 ? 'MockLanguageModelV4 as MockModel' : 'MockLanguageModelV3 as MockModel'} } from 'ai/test';
import { Agent, type FunctionTool } from '@openai/agents-core';
import { DynamicStructuredTool, type StructuredToolInterface } from '@langchain/core/tools';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { toAiSdkTools, toAiSdkToolApproval } from 'toolwright/adapters/ai-sdk';
import { toOpenAIAgentsTools } from 'toolwright/adapters/openai-agents';
import { toLangChainTools } from 'toolwright/adapters/langchain';
import { createMcpServer } from 'toolwright/mcp';
import { createChatHandler, type ChatHandler } from 'toolwright/ai-sdk-ui';
import { Agent as ToolwrightAgent, InMemoryStore, ScriptedModel } from 'toolwright';
import { build, session, LookupOrderTool } from './tools.js';

export async function typed(): Promise<unknown[]> {
  const { registry } = build();
  const s = session('types');
  const tools: ToolSet = toAiSdkTools(registry, { session: s, tools: ['lookup_order'] });
  const model = new MockModel();
  await generateText({ model, tools, prompt: 'x'${aiMajor >= 7 ? ', toolApproval: toAiSdkToolApproval(registry, { session: s })' : ''} });
  streamText({ model, tools, prompt: 'x' });
  void toAiSdkToolApproval;
  const agentTools: FunctionTool[] = toOpenAIAgentsTools(registry, { session: s });
  const lc: StructuredToolInterface[] = toLangChainTools(registry, { session: s });
  const server: Server = createMcpServer(registry, { sessionId: 'types' });
  const agent = new ToolwrightAgent({ name: 'desk', model: new ScriptedModel(() => ({ text: 'ok' })), tools: [LookupOrderTool], store: new InMemoryStore() });
  const chat: ChatHandler = createChatHandler(agent, { userId: () => 'u-1' });
  return [new Agent({ name: 'a', tools: agentTools }), lc[0] instanceof DynamicStructuredTool, server, chat];
}
`;

interface Summary {
  node: string;
  versions: Record<string, string>;
  [section: string]: any;
}

describe.each(ROWS)('install matrix: $name row', (row) => {
  let dir: string;
  let node: string;
  let install: { status: number | null; output: string; seconds: number };
  let summary: Summary | undefined;
  let typeDiagnostics: string | undefined;

  beforeAll(() => {
    node = nodeFor(row);
    dir = join(packed.work, `matrix-${row.name}`);
    mkdirSync(dir, { recursive: true });
    const dependencies = { ...row.dependencies, toolwright: `file:${packed.tarball}`, ...COMPANIONS };
    // better-sqlite3 builds or picks its native addon in an install script (npm's allowScripts).
    const manifest = {
      name: `matrix-${row.name}`,
      private: true,
      type: 'module',
      dependencies,
      devDependencies: row.devDependencies,
      allowScripts: { 'better-sqlite3': true },
    };
    writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
    for (const file of ['tools.ts', 'drive.mjs']) copyFileSync(join(MATRIX, file), join(dir, file));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          experimentalDecorators: true,
          emitDecoratorMetadata: true,
          types: [],
          outDir: 'out',
        },
        include: ['tools.ts'],
      }),
    );
    writeFileSync(join(dir, 'types.ts'), TYPES(semver.major(row.dependencies.ai)));
    // The integrations' own declarations want Node's types and the DOM's fetch types (HeadersInit, RequestCredentials).
    writeFileSync(
      join(dir, 'tsconfig.types.json'),
      JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: { types: ['node'], lib: ['ESNext', 'DOM'], noEmit: true },
        include: ['tools.ts', 'types.ts'],
      }),
    );
    const started = Date.now();
    const result = spawnSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--cache', CACHE], {
      cwd: dir,
      env: envFor(node),
      encoding: 'utf8',
      timeout: 540_000,
    });
    install = { status: result.status, output: `${result.stdout}${result.stderr}`, seconds: (Date.now() - started) / 1000 };
    if (install.status !== 0) return;
    const diagnostics = tsc(dir);
    if (diagnostics !== '') throw new Error(`tools.ts does not compile in the ${row.name} app:\n${diagnostics}`);
    typeDiagnostics = tsc(dir, 'tsconfig.types.json');
    const run = spawnSync(node, ['drive.mjs'], {
      cwd: dir,
      env: { ...envFor(node), OPENAI_AGENTS_DISABLE_TRACING: '1' },
      encoding: 'utf8',
      timeout: 180_000,
    });
    if (run.status !== 0) throw new Error(`drive.mjs exited with ${run.status}:\n${run.stderr}`);
    summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
  }, 600_000);

  /** One section of the summary; a section that threw reports its error here. */
  const section = (name: string) => {
    expect(summary).toBeDefined();
    const value = summary![name];
    expect(value?.failed).toBeUndefined();
    return value;
  };

  it('the rows pin each integration to its peer range: the oldest row at the floor, the newest inside the range', () => {
    for (const [name, version] of Object.entries(row.dependencies)) {
      if (!(name in PEERS)) continue;
      if (row.name === 'oldest') expect(`${name}@${version}`).toBe(`${name}@${semver.minVersion(PEERS[name])!.version}`);
      else expect([name, semver.satisfies(version, PEERS[name])]).toEqual([name, true]);
    }
  });

  it('installs with a plain `npm install`: exit 0, no ERESOLVE, no engine warning, the exact versions', () => {
    expect({ status: install.status, output: install.status === 0 ? '' : install.output }).toEqual({ status: 0, output: '' });
    expect(install.output).not.toMatch(/ERESOLVE|EBADENGINE|peer dep/i);
    expect(Number(summary!.node.split('.')[0])).toBeGreaterThanOrEqual(row.minNode);
    const expected = Object.fromEntries(
      Object.keys(summary!.versions).map((name) => [name, row.dependencies[name] ?? summary!.versions[name]]),
    );
    expect(summary!.versions).toEqual(expected);
    expect(summary!.versions.toolwright).toBe('0.1.0');
    console.log(`install matrix ${row.name}: npm install ${install.seconds.toFixed(1)}s on Node ${summary!.node}`);
  });

  it("type-checks (strict, no skipLibCheck) toolwright's declarations beside this row's integrations", () => {
    expect(typeDiagnostics).toBe('');
  });

  it('AI SDK: generateText and streamText with the major’s own mock model; invalid arguments; per-call context and approval (generateText and streamText) by the major’s own names', () => {
    const ai = section('aiSdk');
    const aiMajor = semver.major(row.dependencies.ai);
    expect(ai.mock).toBe(aiMajor >= 7 ? 'MockLanguageModelV4' : 'MockLanguageModelV3');
    expect(ai.valid).toEqual({ text: 'done', seen: LOOKUP('ai-1'), steps: 2 });
    expect(ai.stream).toEqual({ text: 'streamed', seen: { ...LOOKUP('ai-3'), order_id: 'S-1' } });
    expect(ai.invalid).toBe('INVALID_ARGUMENTS');
    // The session resolver reads the per-call context by the major's name for it.
    expect(ai.context).toEqual({ option: aiMajor >= 7 ? 'toolsContext' : 'experimental_context', seen: LOOKUP('ai-ctx') });
    const approved = { requested: 'process_refund', ranBeforeApproval: 0, ran: ['A-1:500'], seen: REFUNDED, text: 'refunded' };
    // The tool's own `needsApproval`: what ai 6 reads, and ai 7 still does when no `toolApproval` is given.
    expect(ai.approval.needsApproval).toMatchObject(approved);
    expect(ai.approval.needsApproval.asked).toMatchObject({ toolApproval: 0 });
    expect(ai.approval.needsApproval.asked.needsApproval).toBeGreaterThan(0);
    expect(ai.approval.denied).toMatchObject({ ranBeforeApproval: 0, ran: [], seen: 'execution-denied', text: 'not refunded' });
    // streamText: the same flow, paused and resumed on streams, asked by the major's own name.
    const gate = aiMajor >= 7 ? 'toolApproval' : 'needsApproval';
    expect(ai.approval.streamed).toMatchObject(approved);
    expect(ai.approval.streamed.asked[gate]).toBeGreaterThan(0);
    expect(ai.approval.streamed.asked[gate === 'toolApproval' ? 'needsApproval' : 'toolApproval']).toBe(0);
    if (aiMajor >= 7) {
      // ai 7's name: `generateText({ toolApproval: toAiSdkToolApproval(...) })`, asked instead of the tool's needsApproval.
      expect(ai.approval.toolApproval).toMatchObject(approved);
      expect(ai.approval.toolApproval.asked).toMatchObject({ needsApproval: 0 });
      expect(ai.approval.toolApproval.asked.toolApproval).toBeGreaterThan(0);
    } else {
      expect(ai.approval.toolApproval).toBeUndefined();
    }
  });

  it('OpenAI Agents SDK: Runner.run (the session from the run context) and run() with a fake Model; invalid arguments; approval through interruptions', () => {
    const agents = section('agents');
    expect(agents.valid).toEqual({ final: 'done', seen: LOOKUP('oa-1') });
    expect(agents.invalid).toBe('INVALID_ARGUMENTS');
    expect(agents.approval).toEqual({
      requested: ['process_refund'],
      ranBeforeApproval: 0,
      ran: ['A-1:500'],
      seen: REFUNDED,
      final: 'done',
    });
  });

  it("LangChain: @langchain/core's tool-calling loop (and createAgent where `langchain` is installed) with a fake chat model, the session from the RunnableConfig; approval through the app's approver", () => {
    const lc = section('langchain');
    const loops = row.dependencies.langchain ? ['core', 'createAgent'] : ['core'];
    expect(Object.keys(lc.loop)).toEqual(loops);
    for (const loop of loops) {
      const session = loop === 'core' ? 'lc-core' : 'lc-agent';
      expect(lc.loop[loop].valid).toEqual({ seen: { status: 'success', body: LOOKUP(session) }, final: 'done', ran: [] });
      expect(lc.loop[loop].invalid).toMatchObject({
        seen: { status: 'error', body: { status: 'error', code: 'INVALID_ARGUMENTS' } },
        final: 'done',
      });
      expect(lc.loop[loop].approval).toEqual({ seen: { status: 'success', body: REFUNDED }, final: 'done', ran: ['A-1:500'] });
    }
    expect(lc.approvals).toEqual(loops.map(() => ({ name: 'process_refund', args: { order_id: 'A-1', amount_cents: 500 } })));
  });

  it("MCP: the official SDK's Client over InMemoryTransport; invalid arguments; approval by elicitation", () => {
    const mcp = section('mcp');
    expect(mcp.tools).toEqual(['lookup_order', 'process_refund']);
    expect(mcp.valid).toEqual({ isError: false, body: LOOKUP('mcp-1') });
    expect(mcp.invalid).toMatchObject({ isError: true, body: { status: 'error', code: 'INVALID_ARGUMENTS' } });
    expect(mcp.approval).toEqual({ isError: false, body: REFUNDED });
    expect(mcp.asked).toEqual(['Tool "process_refund" needs your approval to run with these arguments:']);
    expect(mcp.ran).toEqual(['A-1:500']);
  });

  it('toolwright/ai-sdk-ui serves useChat from this row’s @ai-sdk/react: the approval request, approve, the result', () => {
    const chat = section('useChat');
    expect(chat).toEqual({
      statusAfterSend: 'ready',
      requested: 'approval-requested',
      ranBeforeApproval: 0,
      after: { state: 'output-available', output: REFUNDED, approved: true },
      texts: ['Checking.', `Refunded: ${JSON.stringify(REFUNDED)}`],
      roles: ['user', 'assistant'],
      ran: ['A-1:500'],
    });
  });

  it("toolwright's OpenAIChatModel and AnthropicModel on this row's openai and @anthropic-ai/sdk; SqliteStore on its better-sqlite3", () => {
    const models = section('models');
    for (const provider of ['openai', 'anthropic']) {
      expect(models[provider]).toEqual({
        status: 'completed',
        output: `done: ${JSON.stringify(LOOKUP('models-1'))}`,
        calls: [{ name: 'lookup_order', status: 'ok', result: LOOKUP('models-1') }],
      });
    }
    // A second store on the same file finds the first run's history.
    expect(section('sqlite')).toEqual({ first: 'user', second: 'user,assistant,user' });
  });

  if (row.devDependencies.typescript) {
    it(`TypeScript ${row.devDependencies.typescript} (the app's own tsc) compiles the decorated tools and type-checks the declarations; the tools it emitted validate and inject`, () => {
      const env = envFor(node);
      const compile = (...args: string[]) =>
        spawnSync(join(dir, 'node_modules/.bin/tsc'), [...args, '--pretty', 'false'], {
          cwd: dir,
          env,
          encoding: 'utf8',
          timeout: 180_000,
        });
      const version = compile('--version');
      expect(version.stdout.trim()).toBe(`Version ${row.devDependencies.typescript}`);
      const built = compile('-p', 'tsconfig.json', '--outDir', 'out7');
      expect(`${built.stdout}${built.stderr}`.trim()).toBe('');
      const checked = compile('-p', 'tsconfig.types.json', '--noEmit');
      expect(`${checked.stdout}${checked.stderr}`.trim()).toBe('');
      writeFileSync(
        join(dir, 'ts7.mjs'),
        `import { build, session, RefundTool, Ledger } from './out7/tools.js';
const { registry, ledger } = build();
const s = session('ts7');
const valid = JSON.parse(await registry.call('lookup_order', '{"order_id":"A-7"}', s.context, s.memory));
const invalid = await registry.call('lookup_order', '{"order_id":""}', s.context, s.memory).then(() => 'accepted', (e) => e.code);
const refund = JSON.parse(await registry.call('process_refund', '{"order_id":"A-7","amount_cents":5}', s.context, s.memory, { approved: true }));
const paramtypes = Reflect.getMetadata('design:paramtypes', RefundTool).map((t) => t.name);
console.log(JSON.stringify({ valid, invalid, refund, ledger: ledger.refunds, paramtypes, sameLedger: paramtypes[0] === Ledger.name }));
`,
      );
      const run = spawnSync(node, ['ts7.mjs'], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toEqual({
        valid: { order_id: 'A-7', status: 'shipped', session: 'ts7' },
        invalid: 'INVALID_ARGUMENTS',
        refund: { status: 'refunded', order_id: 'A-7', amount_cents: 5 },
        ledger: ['A-7:5'],
        paramtypes: ['Ledger'],
        sameLedger: true,
      });
    });
  }
});
