/**
 * The install matrix's app: each integration, at the version this app installed, driven in its
 * host's own loop with a fake model — one valid call, one invalid call (INVALID_ARGUMENTS), one
 * call of a tool that needs approval — plus MCP over the official SDK's client and `useChat` from
 * @ai-sdk/react against `toolwright/ai-sdk-ui`. Prints one JSON summary; install-matrix.test.ts
 * asserts it. Nothing here knows which row it runs in: it reads the installed versions.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { build, session, LookupOrderTool, RefundTool } from './out/tools.js';

const installed = (name) => JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url), 'utf8')).version;
const major = (name) => Number(installed(name).split('.')[0]);
const has = (name) => {
  try {
    return Boolean(installed(name));
  } catch {
    return false;
  }
};

const PACKAGES = [
  'toolwright',
  'ai',
  '@ai-sdk/react',
  'react',
  '@openai/agents-core',
  'openai',
  '@anthropic-ai/sdk',
  '@langchain/core',
  'langchain',
  '@modelcontextprotocol/sdk',
  'better-sqlite3',
  'zod',
];
const summary = { node: process.versions.node, versions: Object.fromEntries(PACKAGES.filter(has).map((p) => [p, installed(p)])) };

/** The body of a tool result however the host wraps it (JSON value, text part, plain string). */
function body(output) {
  if (output === undefined || output === null) return output;
  if (typeof output === 'string') return JSON.parse(output);
  if (Array.isArray(output)) return body(output[0]);
  if (output.type === 'json' || output.type === 'error-json') return output.value;
  if (output.type === 'text' || output.type === 'input_text' || output.type === 'output_text') return body(output.text ?? output.value);
  if (output.type === 'error-text') return body(output.value);
  return output;
}

// ---------------------------------------------------------------- AI SDK: generateText / streamText
async function aiSdk() {
  const ai = await import('ai');
  const aiTest = await import('ai/test');
  const { toAiSdkTools, toAiSdkToolApproval } = await import('toolwright/adapters/ai-sdk');
  const aiMajor = major('ai');
  // The mock model of this major's provider spec (ai 6: LanguageModelV3, ai 7: LanguageModelV4).
  const mockName = aiMajor >= 7 ? 'MockLanguageModelV4' : 'MockLanguageModelV3';
  const MockModel = aiTest[mockName];
  // The mock's function form: ai 6.0.0's array form answers call n with entry n + 1.
  const Mock = class {
    constructor({ doGenerate, doStream }) {
      const queue = (items) => items && (async () => items.shift());
      return new MockModel({ doGenerate: queue(doGenerate), doStream: queue(doStream) });
    }
  };
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
  const call = (toolName, input) => ({
    content: [{ type: 'tool-call', toolCallId: 'call-1', toolName, input: JSON.stringify(input) }],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  });
  const text = (t) => ({ content: [{ type: 'text', text: t }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] });
  /** The tool result the model was given on its last call. */
  const seen = (calls) => {
    const prompt = calls[calls.length - 1].prompt;
    const message = prompt.filter((m) => m.role === 'tool').pop();
    return message?.content.find((p) => p.type === 'tool-result')?.output;
  };

  const out = { mock: mockName };
  {
    const { registry } = build();
    const model = new Mock({ doGenerate: [call('lookup_order', { order_id: 'A-1' }), text('done')] });
    const result = await ai.generateText({
      model,
      tools: toAiSdkTools(registry, { session: session('ai-1') }),
      prompt: 'look up A-1',
      stopWhen: ai.stepCountIs(3),
    });
    out.valid = { text: result.text, seen: body(seen(model.doGenerateCalls)), steps: result.steps.length };
  }
  {
    const { registry } = build();
    const model = new Mock({ doGenerate: [call('lookup_order', { order_id: 42 }), text('done')] });
    await ai.generateText({ model, tools: toAiSdkTools(registry, { session: session('ai-2') }), prompt: 'x', stopWhen: ai.stepCountIs(3) });
    out.invalid = body(seen(model.doGenerateCalls))?.code;
  }
  {
    // The per-call session, passed by the major's own name: ai 6 `experimental_context`, ai 7 `toolsContext` (per tool).
    const { registry } = build();
    const model = new Mock({ doGenerate: [call('lookup_order', { order_id: 'A-1' }), text('done')] });
    const tools = toAiSdkTools(registry, {
      session: (runtime) => session((aiMajor >= 7 ? runtime.context : runtime.experimental_context).sessionId),
    });
    const perCall =
      aiMajor >= 7 ? { toolsContext: { lookup_order: { sessionId: 'ai-ctx' } } } : { experimental_context: { sessionId: 'ai-ctx' } };
    await ai.generateText({ model, tools, prompt: 'x', stopWhen: ai.stepCountIs(3), ...perCall });
    out.context = { option: Object.keys(perCall)[0], seen: body(seen(model.doGenerateCalls)) };
  }
  {
    // streamText: the same call, the model streaming its parts.
    const { registry } = build();
    const stream = (parts) => ({
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    });
    const model = new Mock({
      doStream: [
        stream([
          { type: 'stream-start', warnings: [] },
          { type: 'tool-call', toolCallId: 'call-s', toolName: 'lookup_order', input: '{"order_id":"S-1"}' },
          { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
        ]),
        stream([
          { type: 'stream-start', warnings: [] },
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'streamed' },
          { type: 'text-end', id: 't' },
          { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
        ]),
      ],
    });
    const result = ai.streamText({
      model,
      tools: toAiSdkTools(registry, { session: session('ai-3') }),
      prompt: 'look up S-1',
      stopWhen: ai.stepCountIs(3),
    });
    out.stream = { text: await result.text, seen: body(seen(model.doStreamCalls)) };
  }

  /**
   * One approval round in the AI SDK's own flow: the run stops with a tool-approval-request, the
   * app answers with a tool-approval-response, the next call runs the tool and the model sees it.
   */
  /** A generate result as the parts doStream sends (for streamText). */
  const asStream = (result) => {
    const parts = [{ type: 'stream-start', warnings: [] }];
    for (const c of result.content) {
      if (c.type === 'text')
        parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: c.text }, { type: 'text-end', id: 't' });
      else parts.push(c);
    }
    parts.push({ type: 'finish', finishReason: result.finishReason, usage: result.usage });
    return {
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    };
  };
  /** generateText or streamText over the same scripted results; what the approval flow needs of either. */
  const runText = async (mode, results, options) => {
    if (mode === 'generate') {
      const model = new Mock({ doGenerate: results });
      const r = await ai.generateText({ model, ...options });
      return { content: r.content, messages: r.response.messages, text: r.text, calls: model.doGenerateCalls };
    }
    const model = new Mock({ doStream: results.map(asStream) });
    const r = ai.streamText({ model, ...options });
    return { content: await r.content, messages: (await r.response).messages, text: await r.text, calls: model.doStreamCalls };
  };

  /**
   * One approval round in the AI SDK's own flow: the run stops with a tool-approval-request, the
   * app answers with a tool-approval-response, the next call runs the tool and the model sees it.
   */
  const approvalRound = async (approvalOptions, approved, mode = 'generate') => {
    const { registry, ledger } = build();
    const s = session('ai-approval');
    const tools = toAiSdkTools(registry, { session: s });
    // Which gate the AI SDK asked: the tool's own `needsApproval` or the call's `toolApproval` entry.
    const asked = { needsApproval: 0, toolApproval: 0 };
    const gate = tools.process_refund.needsApproval;
    tools.process_refund.needsApproval = (...args) => (asked.needsApproval++, gate(...args));
    let extra = {};
    if (approvalOptions === 'toolApproval') {
      const entries = toAiSdkToolApproval(registry, { session: s });
      const decide = entries.process_refund;
      extra = { toolApproval: { ...entries, process_refund: (...args) => (asked.toolApproval++, decide(...args)) } };
    }
    const prompt = [{ role: 'user', content: 'refund A-1' }];
    const options = { tools, stopWhen: ai.stepCountIs(3), ...extra };
    const paused = await runText(mode, [call('process_refund', { order_id: 'A-1', amount_cents: 500 }), text('never')], {
      ...options,
      messages: prompt,
    });
    const request = paused.content.find((p) => p.type === 'tool-approval-request');
    const before = [...ledger.refunds];
    const messages = [
      ...prompt,
      ...paused.messages,
      {
        role: 'tool',
        content: [{ type: 'tool-approval-response', approvalId: request?.approvalId, approved, reason: approved ? undefined : 'no' }],
      },
    ];
    const resumed = await runText(mode, [text(approved ? 'refunded' : 'not refunded')], { ...options, messages });
    const output = seen(resumed.calls);
    return {
      asked,
      requested: request?.toolCall?.toolName,
      ranBeforeApproval: before.length,
      ran: [...ledger.refunds],
      seen: approved ? body(output) : output?.type,
      text: resumed.text,
    };
  };
  // ai 6 reads the tool's own `needsApproval`; ai 7 names it `toolApproval` (per call) and still reads the older name.
  out.approval = {
    needsApproval: await approvalRound('needsApproval', true),
    denied: await approvalRound('needsApproval', false),
    streamed: await approvalRound(aiMajor >= 7 ? 'toolApproval' : 'needsApproval', true, 'stream'),
  };
  if (aiMajor >= 7) out.approval.toolApproval = await approvalRound('toolApproval', true);
  return out;
}

// ---------------------------------------------------------------- OpenAI Agents SDK: Runner.run / run
async function agents() {
  const { Agent, Runner, Usage, run } = await import('@openai/agents-core');
  const { toOpenAIAgentsTools } = await import('toolwright/adapters/openai-agents');
  class FakeModel {
    constructor(calls) {
      this.calls = calls;
      this.requests = [];
    }
    async getResponse(request) {
      this.requests.push(request);
      const next = this.calls.shift();
      const usage = new Usage();
      if (next) {
        return {
          usage,
          output: [{ type: 'function_call', callId: 'call-1', name: next.name, arguments: JSON.stringify(next.args), status: 'completed' }],
        };
      }
      return {
        usage,
        output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }],
      };
    }
    // eslint-disable-next-line require-yield
    async *getStreamedResponse() {
      throw new Error('FakeModel does not stream');
    }
    seen() {
      const input = this.requests[this.requests.length - 1].input;
      return input.filter((item) => item.type === 'function_call_result').pop()?.output;
    }
  }
  const runner = new Runner({ tracingDisabled: true });
  const agentWith = (model, registry, s) => new Agent({ name: 'desk', model, tools: toOpenAIAgentsTools(registry, { session: s }) });
  const out = {};
  {
    const { registry } = build();
    const model = new FakeModel([{ name: 'lookup_order', args: { order_id: 'A-1' } }]);
    // The session from the run's own context (`runner.run(agent, input, { context })`).
    const agent = new Agent({
      name: 'desk',
      model,
      tools: toOpenAIAgentsTools(registry, { session: ({ runContext }) => runContext.context.session }),
    });
    const result = await runner.run(agent, 'look up A-1', { context: { session: session('oa-1') } });
    out.valid = { final: result.finalOutput, seen: body(model.seen()) };
  }
  {
    // The package's own `run()` helper (the default runner).
    const { registry } = build();
    const model = new FakeModel([{ name: 'lookup_order', args: { order_id: 42 } }]);
    await run(agentWith(model, registry, session('oa-2')), 'x', { maxTurns: 3 });
    out.invalid = body(model.seen())?.code;
  }
  {
    const { registry, ledger } = build();
    const model = new FakeModel([{ name: 'process_refund', args: { order_id: 'A-1', amount_cents: 500 } }]);
    const agent = agentWith(model, registry, session('oa-3'));
    const paused = await runner.run(agent, 'refund A-1');
    const interruptions = paused.interruptions ?? [];
    const before = [...ledger.refunds];
    for (const item of interruptions) paused.state.approve(item);
    const resumed = await runner.run(agent, paused.state);
    out.approval = {
      requested: interruptions.map((i) => i.rawItem?.name ?? i.name),
      ranBeforeApproval: before.length,
      ran: [...ledger.refunds],
      seen: body(model.seen()),
      final: resumed.finalOutput,
    };
  }
  return out;
}

// ---------------------------------------------------------------- LangChain: createAgent / the core tool-calling loop
async function langchain() {
  const { BaseChatModel } = await import('@langchain/core/language_models/chat_models');
  const { AIMessage, HumanMessage, ToolMessage } = await import('@langchain/core/messages');
  const { toLangChainTools } = await import('toolwright/adapters/langchain');
  /** A fake chat model: the given replies in order, then "done". Records what it was sent. */
  class ScriptedChatModel extends BaseChatModel {
    constructor(replies) {
      super({});
      this.replies = replies;
      this.calls = [];
    }
    _llmType() {
      return 'scripted';
    }
    bindTools(tools) {
      this.bound = tools.map((t) => t.name);
      return this;
    }
    async _generate(messages) {
      this.calls.push(messages);
      const message = this.replies.shift() ?? new AIMessage('done');
      return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
    }
  }
  const callOf = (name, args) => new AIMessage({ content: '', tool_calls: [{ id: 'call-1', type: 'tool_call', name, args }] });
  const seenIn = (messages) => {
    const m = messages.filter((x) => ToolMessage.isInstance?.(x) ?? x instanceof ToolMessage).pop();
    return m ? { status: m.status, body: JSON.parse(m.content) } : undefined;
  };
  const approvals = [];
  const approve = (request) => {
    approvals.push({ name: request.name, args: request.args });
    return { approve: true };
  };

  /** @langchain/core has no agent loop of its own: its tool-calling loop is bindTools → invoke → tool.invoke(toolCall) → invoke. */
  const coreLoop = async (reply) => {
    const { registry, ledger } = build();
    const config = { configurable: { session: session('lc-core') } };
    const tools = toLangChainTools(registry, { session: (cfg) => cfg.configurable.session, approve });
    const model = new ScriptedChatModel([reply]);
    const bound = model.bindTools(tools);
    const messages = [new HumanMessage('go')];
    for (let turn = 0; turn < 3; turn++) {
      const ai = await bound.invoke(messages);
      messages.push(ai);
      if (!ai.tool_calls?.length) break;
      for (const call of ai.tool_calls)
        messages.push(await tools.find((t) => t.name === call.name).invoke({ ...call, type: 'tool_call' }, config));
    }
    return { seen: seenIn(model.calls[model.calls.length - 1]), final: messages[messages.length - 1].content, ran: [...ledger.refunds] };
  };
  const out = { loop: {} };
  out.loop.core = {
    valid: await coreLoop(callOf('lookup_order', { order_id: 'A-1' })),
    invalid: await coreLoop(callOf('lookup_order', { order_id: 42 })),
    approval: await coreLoop(callOf('process_refund', { order_id: 'A-1', amount_cents: 500 })),
  };
  if (has('langchain')) {
    // The `langchain` package's agent loop (createAgent, on LangGraph).
    const { createAgent } = await import('langchain');
    const agentLoop = async (reply) => {
      const { registry, ledger } = build();
      const model = new ScriptedChatModel([reply]);
      // The session from the RunnableConfig the agent is invoked with (LangGraph hands it to each tool).
      const agent = createAgent({ model, tools: toLangChainTools(registry, { session: (cfg) => cfg.configurable.session, approve }) });
      const result = await agent.invoke({ messages: [new HumanMessage('go')] }, { configurable: { session: session('lc-agent') } });
      return { seen: seenIn(result.messages), final: result.messages[result.messages.length - 1].content, ran: [...ledger.refunds] };
    };
    out.loop.createAgent = {
      valid: await agentLoop(callOf('lookup_order', { order_id: 'A-1' })),
      invalid: await agentLoop(callOf('lookup_order', { order_id: 42 })),
      approval: await agentLoop(callOf('process_refund', { order_id: 'A-1', amount_cents: 500 })),
    };
  }
  out.approvals = approvals;
  return out;
}

// ---------------------------------------------------------------- MCP: the official SDK's Client over InMemoryTransport
async function mcp() {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
  const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const { createMcpServer } = await import('toolwright/mcp');
  const { registry, ledger } = build();
  const server = createMcpServer(registry, { sessionId: 'mcp-1' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  // A client that can ask its user: toolwright's approvals arrive as an elicitation form.
  const client = new Client({ name: 'matrix', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const asked = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message.split('\n')[0]);
    return { action: 'accept', content: { decision: 'approve' } };
  });
  await client.connect(clientSide);
  const text = (result) => ({ isError: result.isError === true, body: JSON.parse(result.content[0].text) });
  const out = {
    tools: (await client.listTools()).tools.map((t) => t.name),
    valid: text(await client.callTool({ name: 'lookup_order', arguments: { order_id: 'A-1' } })),
    invalid: text(await client.callTool({ name: 'lookup_order', arguments: { order_id: 42 } })),
    approval: text(await client.callTool({ name: 'process_refund', arguments: { order_id: 'A-1', amount_cents: 500 } })),
  };
  out.asked = asked;
  out.ran = [...ledger.refunds];
  await client.close();
  return out;
}

// ---------------------------------------------------------------- useChat (@ai-sdk/react) against toolwright/ai-sdk-ui
async function useChatRow() {
  const React = (await import('react')).default;
  const TestRenderer = (await import('react-test-renderer')).default;
  const { useChat } = await import('@ai-sdk/react');
  const { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } = await import('ai');
  const { Agent, InMemoryStore, ScriptedModel } = await import('toolwright');
  const { createChatHandler } = await import('toolwright/ai-sdk-ui');
  const { ledger } = build();
  ledger.refunds.length = 0;
  const model = new ScriptedModel((request) => {
    const last = request.messages[request.messages.length - 1];
    if (last.role === 'user')
      return { text: 'Checking.', toolCalls: [{ id: 'pay-1', name: 'process_refund', arguments: { order_id: 'A-1', amount_cents: 500 } }] };
    return { text: `Refunded: ${last.content}` };
  });
  const agent = new Agent({ name: 'desk', model, tools: [LookupOrderTool, RefundTool], store: new InMemoryStore() });
  const handler = createChatHandler(agent, { userId: () => 'u-1' });
  // The browser's fetch, answered by the handler's fetch door (no port needed).
  const fetchViaHandler = (url, init) => handler.fetch(new Request(new URL(String(url), 'http://app.test'), init));
  const transport = new DefaultChatTransport({ api: '/api/chat', fetch: fetchViaHandler });

  globalThis.IS_REACT_ACT_ENVIRONMENT = true;
  const act = React.act ?? TestRenderer.act;
  let chat;
  function App() {
    chat = useChat({ id: 'chat-1', transport, sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses });
    return null;
  }
  let renderer;
  await act(async () => {
    renderer = TestRenderer.create(React.createElement(App));
  });
  const settle = async () => {
    for (let i = 0; i < 300; i++) {
      await act(async () => {
        await new Promise((resolve) => setTimeout(resolve, 10));
      });
      if (chat.status === 'ready' || chat.status === 'error') return;
    }
  };
  await act(async () => {
    await chat.sendMessage({ text: 'refund A-1' });
  });
  await settle();
  const part = (state) =>
    chat.messages[chat.messages.length - 1]?.parts.find((p) => p.type === 'tool-process_refund' && (!state || p.state === state));
  const requested = part('approval-requested');
  const out = { statusAfterSend: chat.status, requested: requested?.state, ranBeforeApproval: ledger.refunds.length };
  await act(async () => {
    await chat.addToolApprovalResponse({ id: requested.approval.id, approved: true });
  });
  await settle();
  const done = part();
  out.after = { state: done?.state, output: done?.output, approved: done?.approval?.approved };
  out.texts = chat.messages[chat.messages.length - 1].parts.filter((p) => p.type === 'text').map((p) => p.text);
  out.roles = chat.messages.map((m) => m.role);
  out.ran = [...ledger.refunds];
  out.error = chat.error?.message;
  await act(async () => renderer.unmount());
  return out;
}

// ---------------------------------------------------------------- toolwright's own models on the app's openai / @anthropic-ai/sdk
async function models() {
  const { createServer } = await import('node:http');
  const { Agent, AnthropicModel, InMemoryStore, OpenAIChatModel } = await import('toolwright');
  // A stand-in for both APIs: first a call of lookup_order, then an answer quoting the tool result it was sent.
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const body = JSON.parse(raw);
      const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, input_tokens: 1, output_tokens: 1 };
      let answer;
      if (req.url.endsWith('/chat/completions')) {
        const result = body.messages.find((m) => m.role === 'tool');
        const message = result
          ? { role: 'assistant', content: `done: ${result.content}` }
          : {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'call-1', type: 'function', function: { name: 'lookup_order', arguments: '{"order_id":"A-1"}' } }],
            };
        answer = {
          id: 'c',
          object: 'chat.completion',
          created: 0,
          model: body.model,
          choices: [{ index: 0, finish_reason: result ? 'stop' : 'tool_calls', message }],
          usage,
        };
      } else {
        const result = body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((c) => c.type === 'tool_result');
        const text = typeof result?.content === 'string' ? result.content : result?.content?.[0]?.text;
        answer = {
          id: 'm',
          type: 'message',
          role: 'assistant',
          model: body.model,
          content: result
            ? [{ type: 'text', text: `done: ${text}` }]
            : [{ type: 'tool_use', id: 'tu-1', name: 'lookup_order', input: { order_id: 'A-1' } }],
          stop_reason: result ? 'end_turn' : 'tool_use',
          stop_sequence: null,
          usage,
        };
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  const runWith = async (model) => {
    build();
    const agent = new Agent({ name: 'desk', model, tools: [LookupOrderTool], store: new InMemoryStore() });
    const result = await agent.run('look up A-1', { sessionId: 'models-1' });
    return {
      status: result.status,
      output: result.output,
      calls: result.toolCalls.map((c) => ({ name: c.name, status: c.status, result: JSON.parse(c.result) })),
    };
  };
  try {
    return {
      openai: await runWith(new OpenAIChatModel({ model: 'gpt-4.1', apiKey: 'test', baseURL: `${base}/v1`, maxRetries: 0 })),
      anthropic: await runWith(new AnthropicModel({ model: 'claude-sonnet-4-6', apiKey: 'test', baseURL: base, maxRetries: 0 })),
    };
  } finally {
    server.close();
  }
}

// ---------------------------------------------------------------- the SQLite store on the app's better-sqlite3
async function sqlite() {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { Agent, ScriptedModel, SqliteStore } = await import('toolwright');
  const dir = mkdtempSync(join(tmpdir(), 'tw-matrix-sqlite-'));
  try {
    const path = join(dir, 'state.db');
    // Two runs of one session, each with its own store on the same file: the second sees the first's history.
    const turn = async (text) => {
      const store = new SqliteStore({ path, driver: 'better-sqlite3' });
      const model = new ScriptedModel((request) => ({
        text: `${request.messages
          .filter((m) => m.role !== 'system')
          .map((m) => m.role)
          .join(',')}`,
      }));
      try {
        return (await new Agent({ name: 'desk', model, tools: [LookupOrderTool], store }).run(text, { sessionId: 'sq-1', userId: 'u-1' }))
          .output;
      } finally {
        await store.close();
      }
    };
    return { first: await turn('hello'), second: await turn('again') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const sections = { aiSdk, agents, langchain, mcp, useChat: useChatRow, models, sqlite };
for (const [name, run] of Object.entries(sections)) {
  try {
    summary[name] = await run();
  } catch (error) {
    summary[name] = { failed: error instanceof Error ? `${error.name}: ${error.message}\n${error.stack}` : String(error) };
  }
}
// A file, not stdout: the SDKs may log there (the Agents SDK's trace exporter does).
writeFileSync(new URL('./summary.json', import.meta.url), JSON.stringify(summary, null, 2));
