/**
 * One gate below every surface: the same caller (alice, tenant t1, no admin rights) meets the same
 * policies through the registry, the Agent runner, MCP (official SDK client over HTTP), the AI SDK,
 * OpenAI Agents and LangChain loops (their mock models), and the built CLI as a subprocess; for
 * local tools and for remote MCP tools (server-everything over stdio) alike.
 */
import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { AIMessageChunk, ToolMessage } from '@langchain/core/messages';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import {
  Agent as OpenAIAgent,
  Runner,
  Usage,
  type Model as OpenAIModel,
  type ModelRequest as OpenAIRequest,
  type ModelResponse,
} from '@openai/agents-core';
import { generateText, stepCountIs, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { Agent, AgentContext, AgentMemory, InMemoryStore, ScriptedModel, type ToolRegistry } from '../../src';
import { toAiSdkTools } from '../../src/adapters/ai-sdk';
import { toLangChainTools } from '../../src/adapters/langchain';
import { toOpenAIAgentsTools } from '../../src/adapters/openai-agents';
import { serveHttp, type HttpHandle } from '../../src/mcp';
import { buildCli, type BuiltCli } from '../cli/build-cli';
import { runNode } from '../cli/run-cli';
import { executed } from '../fixtures/policy.config';
import { registry as withRemoteTools } from '../fixtures/remote-policy.config';

/** The policy tools and remote tools behind the same policies (built in beforeAll). */
let registry: ToolRegistry;

const ALICE = { userId: 'alice', tenantId: 't1' };
const HIDDEN = ['admin_reset', 'beta_export', 'acme_ledger', 'r_get_env', 'r_get_resource_links'];
const aliceSession = () => ({
  context: new AgentContext({ sessionId: `s-${Math.random()}`, ...ALICE }),
  memory: new AgentMemory({ agentName: 'table', ...ALICE }),
});

/** What a surface did with one call: ran it, or refused it with a code (the surface's own signal, normalized). */
interface Outcome {
  ran: boolean;
  code?: string;
  /** The refusal text the caller saw, if any (checked for leaked hidden tool names). */
  text?: string;
}

interface Surface {
  name: string;
  /** The tool names this caller is offered. */
  listed(): Promise<string[]>;
  call(tool: string, args: Record<string, unknown>): Promise<Outcome>;
}

const fromJson = (text: string): Outcome => {
  const body = JSON.parse(text) as { status?: string; code?: string };
  return body.status === 'error' ? { ran: false, code: body.code, text } : { ran: true };
};

// --- the surfaces ----------------------------------------------------------------------------

const registrySurface: Surface = {
  name: 'registry.call',
  listed: async () => (await registry.visible(aliceSession().context)).map((t) => t.name),
  call: async (tool, args) => {
    const { context, memory } = aliceSession();
    try {
      await registry.call(tool, args, context, memory);
      return { ran: true };
    } catch (error) {
      return { ran: false, code: (error as { code: string }).code, text: (error as Error).message };
    }
  },
};

const runnerSurface: Surface = {
  name: 'Agent runner',
  listed: async () => {
    const model = new ScriptedModel([{ text: 'hi' }]);
    await new Agent({ name: 'table', model, tools: registry, store: new InMemoryStore() }).run('hi', { sessionId: 's-list', ...ALICE });
    return model.requests[0].tools.map((t) => t.name);
  },
  call: async (tool, args) => {
    const model = new ScriptedModel([{ toolCalls: [{ id: 'c-1', name: tool, arguments: args }] }, { text: 'done' }]);
    const agent = new Agent({ name: 'table', model, tools: registry, store: new InMemoryStore() });
    const result = await agent.run('go', { sessionId: 's-call', ...ALICE });
    if (result.status === 'paused') return { ran: false, code: 'APPROVAL_REQUIRED' };
    const record = result.toolCalls[0];
    return record.status === 'ok' ? { ran: true } : { ran: false, code: record.code, text: record.result };
  },
};

let mcpServer: HttpHandle;
const mcpClients: Client[] = [];
async function mcpClient(token: string, elicit?: (params: unknown) => ElicitResult): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(mcpServer.url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'table', version: '1.0.0' }, elicit ? { capabilities: { elicitation: { form: {} } } } : {});
  if (elicit) client.setRequestHandler(ElicitRequestSchema, async (request) => elicit(request.params));
  await client.connect(transport);
  mcpClients.push(client);
  return client;
}
const mcpText = (result: CallToolResult) => (result.content[0] as { text: string }).text;

const mcpSurface: Surface = {
  name: 'MCP (SDK client, HTTP)',
  listed: async () => (await (await mcpClient('token-alice')).listTools()).tools.map((t) => t.name),
  call: async (tool, args) => {
    const result = (await (await mcpClient('token-alice')).callTool({ name: tool, arguments: args })) as CallToolResult;
    return result.isError ? fromJson(mcpText(result)) : { ran: true };
  },
};

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const aiToolCall = (toolName: string, input: string): LanguageModelV3GenerateResult => ({
  content: [{ type: 'tool-call', toolCallId: 'call-1', toolName, input }],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage,
  warnings: [],
});
const aiText: LanguageModelV3GenerateResult = {
  content: [{ type: 'text', text: 'done' }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage,
  warnings: [],
};

const aiSdkSurface: Surface = {
  name: 'AI SDK (generateText)',
  listed: async () => {
    const session = aliceSession();
    const model = new MockLanguageModelV3({ doGenerate: aiText });
    // The AI SDK offers a fixed tool set per call; `activeTools` from the gate narrows it for this caller.
    const activeTools = (await registry.visible(session.context)).map((t) => t.name);
    await generateText({ model, tools: toAiSdkTools(registry, { session }), activeTools, prompt: 'hi' });
    return model.doGenerateCalls[0].tools!.map((t) => t.name);
  },
  call: async (tool, args) => {
    const session = aliceSession();
    const model = new MockLanguageModelV3({ doGenerate: [aiToolCall(tool, JSON.stringify(args)), aiText] });
    const result = await generateText({ model, tools: toAiSdkTools(registry, { session }), prompt: 'go', stopWhen: stepCountIs(2) });
    if (result.steps[0].content.some((part) => part.type === 'tool-approval-request')) return { ran: false, code: 'APPROVAL_REQUIRED' };
    const output = result.steps[0].toolResults[0].output as { status?: string; code?: string };
    return output.status === 'error' ? { ran: false, code: output.code, text: JSON.stringify(output) } : { ran: true };
  },
};

class OpenAIFakeModel implements OpenAIModel {
  readonly requests: OpenAIRequest[] = [];
  constructor(private readonly call?: { name: string; arguments: string }) {}
  async getResponse(request: OpenAIRequest): Promise<ModelResponse> {
    this.requests.push(request);
    if (this.call && this.requests.length === 1) {
      return {
        usage: new Usage(),
        output: [{ type: 'function_call', callId: 'call-1', name: this.call.name, arguments: this.call.arguments, status: 'completed' }],
      };
    }
    return {
      usage: new Usage(),
      output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }],
    };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('no streaming');
  }
  toolOutput(): string | undefined {
    const input = (this.requests[1]?.input ?? []) as Array<{ type: string; output?: unknown }>;
    const output = input.find((item) => item.type === 'function_call_result')?.output as string | { text: string } | undefined;
    return typeof output === 'string' ? output : output?.text;
  }
}
const runner = new Runner({ tracingDisabled: true });
const openAIAgent = (model: OpenAIFakeModel) =>
  new OpenAIAgent<{ session: ReturnType<typeof aliceSession> }>({
    name: 'table',
    model,
    tools: toOpenAIAgentsTools(registry, { session: ({ runContext }) => runContext!.context.session }),
  });

const openAISurface: Surface = {
  name: 'OpenAI Agents (Runner)',
  listed: async () => {
    const model = new OpenAIFakeModel();
    await runner.run(openAIAgent(model), 'hi', { context: { session: aliceSession() } });
    return (model.requests[0].tools as { name: string }[]).map((t) => t.name);
  },
  call: async (tool, args) => {
    const model = new OpenAIFakeModel({ name: tool, arguments: JSON.stringify(args) });
    try {
      const result = await runner.run(openAIAgent(model), 'go', { context: { session: aliceSession() } });
      if (result.interruptions.length > 0) return { ran: false, code: 'APPROVAL_REQUIRED' };
      return fromJson(model.toolOutput()!);
    } catch (error) {
      // A tool the run was not offered: the Agents SDK refuses the call itself before any tool runs.
      if (/Tool .* not found/i.test((error as Error).message))
        return { ran: false, code: 'TOOL_NOT_FOUND', text: (error as Error).message };
      throw error;
    }
  },
};

const langChainSurface: Surface = {
  name: 'LangChain (bindTools + invoke)',
  listed: async () => {
    const session = aliceSession();
    const tools = toLangChainTools(registry, { session, tools: (await registry.visible(session.context)).map((t) => t.name) });
    const bound = new FakeStreamingChatModel({}).bindTools(tools) as unknown as { config: { tools: { function: { name: string } }[] } };
    return bound.config.tools.map((t) => t.function.name);
  },
  call: async (tool, args) => {
    // Every tool object exists here: the gate, not the tool list, is what refuses.
    const tools = toLangChainTools(registry, { session: aliceSession() });
    const caller = new FakeStreamingChatModel({
      chunks: [new AIMessageChunk({ content: '', tool_calls: [{ id: 'call-1', type: 'tool_call', name: tool, args }] })],
    });
    const reply = await caller.bindTools(tools).invoke('go');
    const call = reply.tool_calls![0];
    const message = (await tools.find((t) => t.name === call.name)!.invoke({ ...call, type: 'tool_call' })) as ToolMessage;
    return fromJson(message.content as string);
  },
};

let cli: BuiltCli;
const cliSurface: Surface = {
  name: 'CLI (built, subprocess)',
  listed: async () => {
    const { code, stdout } = await runNode(cli.main, [
      'list',
      '--format',
      'json',
      '--user',
      'alice',
      '--tenant',
      't1',
      '--module',
      cli.remotePolicyFixture,
    ]);
    expect(code).toBe(0);
    return (JSON.parse(stdout) as { name: string }[]).map((t) => t.name);
  },
  call: async (tool, args) => {
    const run = await runNode(cli.main, [
      'call',
      tool,
      JSON.stringify(args),
      '--user',
      'alice',
      '--tenant',
      't1',
      '--module',
      cli.remotePolicyFixture,
    ]);
    if (run.code === 0) return { ran: true };
    return { ran: false, code: /toolwright: ([A-Z_]+):/.exec(run.stderr)?.[1], text: run.stderr };
  },
};

/** `toolwright mcp` over stdio, spawned by the SDK's client, running as alice of t1. */
async function stdioClient(): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli.main, 'mcp', '--module', cli.remotePolicyFixture, '--user', 'alice', '--tenant', 't1'],
    stderr: 'pipe',
  });
  const client = new Client({ name: 'table-stdio', version: '1.0.0' });
  await client.connect(transport);
  mcpClients.push(client);
  return client;
}

const mcpStdioSurface: Surface = {
  name: 'MCP (SDK client, stdio, built CLI)',
  listed: async () => (await (await stdioClient()).listTools()).tools.map((t) => t.name),
  call: async (tool, args) => {
    const result = (await (await stdioClient()).callTool({ name: tool, arguments: args })) as CallToolResult;
    return result.isError ? fromJson(mcpText(result)) : { ran: true };
  },
};

const SURFACES = [registrySurface, runnerSurface, mcpSurface, mcpStdioSurface, aiSdkSurface, openAISurface, langChainSurface, cliSurface];

/** policy → the tool behind it, valid arguments, and the one outcome every surface must give. */
const POLICIES: Array<[policy: string, tool: string, args: Record<string, unknown>, listed: boolean, expected: Outcome]> = [
  ['no policy', 'echo', { text: 'hi' }, true, { ran: true }],
  ['hidden (authorize)', 'admin_reset', { text: 'all' }, false, { ran: false, code: 'TOOL_NOT_FOUND' }],
  ['disabled (isEnabled)', 'beta_export', { text: 'all' }, false, { ran: false, code: 'TOOL_NOT_FOUND' }],
  ['other tenant', 'acme_ledger', { text: 'all' }, false, { ran: false, code: 'TOOL_NOT_FOUND' }],
  ['approval required', 'refund', { order_id: 'A-1', amount_cents: 500 }, true, { ran: false, code: 'APPROVAL_REQUIRED' }],
  ['over its rate limit', 'quota_probe', { text: 'x' }, true, { ran: false, code: 'RATE_LIMITED' }],
  ['remote, no policy', 'r_echo', { message: 'hi' }, true, { ran: true }],
  ['remote, hidden (authorize)', 'r_get_env', {}, false, { ran: false, code: 'TOOL_NOT_FOUND' }],
  ['remote, other tenant', 'r_get_resource_links', { count: 1 }, false, { ran: false, code: 'TOOL_NOT_FOUND' }],
  ['remote, approval required', 'r_get_sum', { a: 1, b: 2 }, true, { ran: false, code: 'APPROVAL_REQUIRED' }],
  ['remote, over its rate limit', 'r_get_tiny_image', {}, true, { ran: false, code: 'RATE_LIMITED' }],
];

beforeAll(async () => {
  cli = buildCli();
  registry = await withRemoteTools();
  mcpServer = await serveHttp(registry, {
    auth: ({ token }) => (token === 'token-alice' ? ALICE : token === 'token-root' ? { userId: 'root', tenantId: 't1' } : undefined),
  });
}, 180_000);

afterAll(async () => {
  await Promise.all(mcpClients.map((c) => c.close()));
  await mcpServer.close();
  await registry.close();
});

beforeEach(() => (executed.length = 0));

describe.each(SURFACES.map((s) => [s.name, s] as const))('%s', (_name, surface) => {
  it('lists exactly what the caller may use', async () => {
    const listed = await surface.listed();
    expect(listed.sort()).toEqual(
      POLICIES.filter(([, , , shown]) => shown)
        .map(([, tool]) => tool)
        .sort(),
    );
  });

  it.each(POLICIES)('%s: %s gives the same outcome as everywhere else', async (_policy, tool, args, _listed, expected) => {
    const outcome = await surface.call(tool, args);
    expect({ ran: outcome.ran, code: outcome.code }).toEqual(expected);
    if (tool !== 'echo' && surface !== cliSurface && surface !== mcpStdioSurface) expect(executed).toEqual([]);
    // A refusal never advertises a hidden tool (TOOL_NOT_FOUND lists only what the caller may use).
    for (const hidden of HIDDEN) if (hidden !== tool) expect(outcome.text ?? '').not.toContain(hidden);
  });
});

describe('a human decides approval-required calls on each surface', () => {
  const refund = { order_id: 'A-7', amount_cents: 1200 };

  it('MCP: elicitation approves, rejects, or edits the arguments (validated again)', async () => {
    const answers: ElicitResult[] = [
      { action: 'accept', content: { decision: 'approve' } },
      { action: 'accept', content: { decision: 'reject', reason: 'not eligible' } },
      { action: 'decline' },
      { action: 'accept', content: { decision: 'approve', arguments: '{"order_id":"A-7","amount_cents":300}' } },
      { action: 'accept', content: { decision: 'approve', arguments: '{"order_id":"A-7","amount_cents":-5}' } },
    ];
    const asked: string[] = [];
    const client = await mcpClient('token-alice', (params) => {
      asked.push((params as { message: string }).message);
      return answers.shift()!;
    });
    const outcomes: CallToolResult[] = [];
    for (let i = 0; i < 5; i++) outcomes.push((await client.callTool({ name: 'refund', arguments: refund })) as CallToolResult);

    expect(asked[0]).toContain('"amount_cents": 1200');
    expect(outcomes[0].isError).toBeFalsy();
    expect(JSON.parse(mcpText(outcomes[0]))).toEqual({ refunded: 'A-7', amount_cents: 1200 });
    expect(JSON.parse(mcpText(outcomes[1]))).toMatchObject({ code: 'REJECTED', message: expect.stringContaining('not eligible') });
    expect(JSON.parse(mcpText(outcomes[2]))).toMatchObject({ code: 'REJECTED' });
    expect(JSON.parse(mcpText(outcomes[3]))).toEqual({ refunded: 'A-7', amount_cents: 300 });
    expect(outcomes[4].isError).toBe(true);
    expect(JSON.parse(mcpText(outcomes[4]))).toMatchObject({ code: 'INVALID_ARGUMENTS' });
    expect(executed).toEqual(['refund:A-7:1200', 'refund:A-7:300']);
  });

  it('MCP: a hidden tool is refused before anyone is asked', async () => {
    const client = await mcpClient('token-alice', () => {
      throw new Error('must not be asked');
    });
    const result = (await client.callTool({ name: 'admin_reset', arguments: { text: 'x' } })) as CallToolResult;
    expect(JSON.parse(mcpText(result))).toMatchObject({ code: 'TOOL_NOT_FOUND' });
    // root may: the same registry, another principal.
    const root = await mcpClient('token-root');
    expect((await root.listTools()).tools.map((t) => t.name)).toContain('admin_reset');
    expect(((await root.callTool({ name: 'admin_reset', arguments: { text: 'x' } })) as CallToolResult).isError).toBeFalsy();
  });

  it("AI SDK: the host app's approval response runs the call", async () => {
    const session = aliceSession();
    const tools = toAiSdkTools(registry, { session });
    const model = new MockLanguageModelV3({ doGenerate: [aiToolCall('refund', JSON.stringify(refund)), aiText] });
    const first = await generateText({ model, tools, prompt: 'refund', stopWhen: stepCountIs(2) });
    const request = first.content.find((p) => p.type === 'tool-approval-request') as { approvalId: string } | undefined;
    expect(request).toBeDefined();
    expect(executed).toEqual([]);

    const messages: ModelMessage[] = [
      { role: 'user', content: 'refund' },
      ...first.response.messages,
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: request!.approvalId, approved: true }] },
    ];
    await generateText({ model, tools, messages, stopWhen: stepCountIs(1) });
    expect(executed).toEqual(['refund:A-7:1200']);
  });

  it('OpenAI Agents: approving the interruption runs the call', async () => {
    const model = new OpenAIFakeModel({ name: 'refund', arguments: JSON.stringify(refund) });
    const agent = openAIAgent(model);
    const first = await runner.run(agent, 'refund', { context: { session: aliceSession() } });
    expect(first.interruptions).toHaveLength(1);
    expect(executed).toEqual([]);
    first.state.approve(first.interruptions[0]);
    await runner.run(agent, first.state);
    expect(executed).toEqual(['refund:A-7:1200']);
  });

  it("LangChain: the app's approver approves, edits (validated again) or rejects", async () => {
    const decisions = [
      { approve: true as const },
      { approve: true as const, arguments: { order_id: 'A-7', amount_cents: 100 } },
      { approve: true as const, arguments: { order_id: 'A-7', amount_cents: 'lots' } },
      { approve: false as const, reason: 'fraud suspected' },
    ];
    const [tool] = toLangChainTools(registry, { session: aliceSession(), tools: ['refund'], approve: () => decisions.shift()! });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(JSON.parse((await tool.invoke(refund)) as string));
    expect(results[0]).toEqual({ refunded: 'A-7', amount_cents: 1200 });
    expect(results[1]).toEqual({ refunded: 'A-7', amount_cents: 100 });
    expect(results[2]).toMatchObject({ code: 'INVALID_ARGUMENTS' });
    expect(results[3]).toMatchObject({ code: 'REJECTED', message: expect.stringContaining('fraud suspected') });
    expect(executed).toEqual(['refund:A-7:1200', 'refund:A-7:100']);
  });

  it('CLI: --approve from the person at the terminal runs the call', async () => {
    const refused = await runNode(cli.main, ['call', 'refund', JSON.stringify(refund), '--module', cli.remotePolicyFixture]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('--approve');
    const approved = await runNode(cli.main, ['call', 'refund', JSON.stringify(refund), '--approve', '--module', cli.remotePolicyFixture]);
    expect({ code: approved.code, stdout: approved.stdout }).toEqual({ code: 0, stdout: '{"refunded":"A-7","amount_cents":1200}\n' });
  });

  it('Agent runner: an approved decision runs the call; the registry alone never does', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ id: 'c-1', name: 'refund', arguments: refund }] }, { text: 'done' }]);
    const agent = new Agent({ name: 'table', model, tools: registry, store: new InMemoryStore() });
    const paused = await agent.run('refund', { sessionId: 's-a', ...ALICE });
    expect(paused.status).toBe('paused');
    expect(executed).toEqual([]);
    await agent.approve({ sessionId: 's-a', ...ALICE }, 'c-1');
    expect(executed).toEqual(['refund:A-7:1200']);
    await expect(registry.call('refund', refund, aliceSession().context)).rejects.toMatchObject({ code: 'APPROVAL_REQUIRED' });
  });
});
