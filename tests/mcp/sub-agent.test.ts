/**
 * An agent tool over MCP whose child run needs approval: MCP cannot pause the calling client's run,
 * so the person is asked through the client (elicitation), and the child resumes with their decision.
 * A client that cannot ask ends the call with the pause (ChildRunPausedError, as an error result the
 * client's model reads); the child's call is neither run nor approved by itself, and stays paused in the child's session.
 */
import 'reflect-metadata';
import { IsString, MinLength } from 'class-validator';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { Agent, InMemoryStore, Param, ScriptedModel, Tool, ToolRegistry, type Message, type ToolInterface } from '../../src';
import { createMcpServer, serveHttp, tokenAuth, type HttpHandle } from '../../src/mcp';

class OrderInput {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
}

const refunded: string[] = [];
@Tool({ name: 'process_refund', description: 'Refund an order', input: OrderInput, approval: true })
class RefundTool implements ToolInterface<OrderInput> {
  execute({ order_id }: OrderInput) {
    refunded.push(order_id);
    return { refunded: order_id };
  }
}

let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  refunded.length = 0;
});

const lastTool = (messages: readonly Message[]) => [...messages].reverse().find((m) => m.role === 'tool')!;

/** A billing agent (its refund needs approval) as a tool over MCP, to a client that answers elicitation with `answer`. */
async function serve(answer?: (request: ElicitRequest) => object) {
  const store = new InMemoryStore();
  const model = new ScriptedModel([
    { toolCalls: [{ id: 'r1', name: 'process_refund', arguments: { order_id: 'A-1' } }] },
    (request) => ({ text: `billing: ${lastTool(request.messages).content}` }),
  ]);
  const billing = new Agent({ name: 'billing', model, tools: [RefundTool], store });
  const registry = await ToolRegistry.buildAsync({ tools: [], mcp: [billing.asTool({ name: 'billing_agent', description: 'Refunds' })] });
  const server = createMcpServer(registry, { onError: () => undefined });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'sub-agent-test', version: '1.0.0' }, { capabilities: answer ? { elicitation: { form: {} } } : {} });
  const asked: ElicitRequest[] = [];
  if (answer)
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request);
      return answer(request);
    });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  const result = (await client.callTool({ name: 'billing_agent', arguments: { input: 'Refund A-1' } })) as CallToolResult;
  return { result, asked, model, store };
}

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe('an agent tool over MCP whose child needs approval, asked of the person through the client', () => {
  it('approved: the refund runs once and the call answers with what the child answered', async () => {
    const { result, asked, model } = await serve(() => ({ action: 'accept', content: { decision: 'approve' } }));

    expect(result.isError).toBeFalsy();
    expect(refunded).toEqual(['A-1']);
    expect(asked).toHaveLength(1);
    const params = asked[0].params as { message: string; requestedSchema: { properties: Record<string, unknown> } };
    expect(params.message).toContain('Agent "billing"');
    expect(params.message).toContain('"process_refund"');
    expect(params.message).toContain('"order_id": "A-1"');
    expect(Object.keys(params.requestedSchema.properties).sort()).toEqual(['decision', 'reason']);
    expect(JSON.parse(textOf(result))).toEqual({ output: 'billing: {"refunded":"A-1"}' });
    expect(model.requests).toHaveLength(2);
  });

  it('rejected: the refund never runs and the model of the child reads the reason', async () => {
    const { result, model } = await serve(() => ({ action: 'accept', content: { decision: 'reject', reason: 'over the limit' } }));

    expect(result.isError).toBeFalsy();
    expect(refunded).toEqual([]);
    const seen = lastTool(model.requests[1].messages).content ?? '';
    expect(seen).toContain('REJECTED');
    expect(seen).toContain('over the limit');
    expect((JSON.parse(textOf(result)) as { output: string }).output).toContain('over the limit');
  });

  it('declined: the refund never runs; the child is told the person declined', async () => {
    const { result, model } = await serve(() => ({ action: 'decline' }));

    expect(result.isError).toBeFalsy();
    expect(refunded).toEqual([]);
    expect(lastTool(model.requests[1].messages).content).toContain('the user chose decline');
  });

  it('a client without elicitation: the call ends with the pause (CHILD_RUN_PAUSED in words), nothing runs', async () => {
    const { result, store } = await serve();

    expect(result.isError).toBe(true);
    // The registry reports what the tool threw as TOOL_FAILED, with the pause's words (the child's session in them).
    const error = JSON.parse(textOf(result)) as { code: string; message: string };
    expect(error.code).toBe('TOOL_FAILED');
    expect(error.message).toMatch(/Agent "billing", called as a tool, paused: r1/);
    expect(refunded).toEqual([]);
    const session = /session "([^"]+)"/.exec(error.message)?.[1];
    expect(session).toMatch(/\/billing_agent:/);
    const saved = await store.loadSession({ sessionId: session! });
    expect((saved?.pendingRun as { approvals: { toolCallId: string }[] }).approvals.map((a) => a.toolCallId)).toEqual(['r1']);
  });
});

describe('the same over MCP 2026-07-28 rounds (raw HTTP)', () => {
  let http: HttpHandle | undefined;
  afterEach(() => http?.close());

  it('asks the approval as a named question; the answering round resumes the child and the refund runs once', async () => {
    // A model that names its calls anew on every turn, as real ones do: the question must not depend on the call's id.
    const model = new ScriptedModel((request) =>
      request.messages.at(-1)?.role === 'tool'
        ? { text: `billing: ${lastTool(request.messages).content}` }
        : { toolCalls: [{ name: 'process_refund', arguments: { order_id: 'A-1' } }] },
    );
    const billing = new Agent({ name: 'billing', model, tools: [RefundTool], store: new InMemoryStore() });
    const registry = await ToolRegistry.buildAsync({ tools: [], mcp: [billing.asTool({ name: 'billing_agent', description: 'Refunds' })] });
    http = await serveHttp(registry, {
      store: new InMemoryStore(),
      auth: tokenAuth({ 'token-a': { userId: 'alice' } }),
      requestStateSecret: 'a shared secret of at least 32 bytes, for the test',
      onError: () => undefined,
    });

    const first = await call2026(http, {});
    expect(first.resultType).toBe('input_required');
    const keys = Object.keys(first.inputRequests as object);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^approve\./);
    expect(refunded).toEqual([]);

    const second = await call2026(http, {
      inputResponses: { [keys[0]]: { action: 'accept', content: { decision: 'approve' } } },
      requestState: first.requestState,
    });
    expect(second.resultType).toBe('complete');
    expect(refunded).toEqual(['A-1']);
    // The answering round (the same request id) found the child paused and resumed it: its model was not asked again before.
    expect(model.requests).toHaveLength(2);
    const text = (second.content as { text: string }[])[0].text;
    expect((JSON.parse(text) as { output: string }).output).toBe('billing: {"refunded":"A-1"}');
  });
});

describe('MCP 2026-07-28 rounds under a new request id each', () => {
  let http: HttpHandle | undefined;
  afterEach(() => http?.close());

  it('the answering round, sent with another id, is answered by the same question: the refund runs once, no round asks again', async () => {
    const model = new ScriptedModel((request) =>
      request.messages.at(-1)?.role === 'tool'
        ? { text: `billing: ${lastTool(request.messages).content}` }
        : { toolCalls: [{ name: 'process_refund', arguments: { order_id: 'A-2' } }] },
    );
    const billing = new Agent({ name: 'billing', model, tools: [RefundTool], store: new InMemoryStore() });
    const registry = await ToolRegistry.buildAsync({
      tools: [],
      sources: [billing.asTool({ name: 'billing_agent', description: 'Refunds' })],
    });
    http = await serveHttp(registry, {
      store: new InMemoryStore(),
      auth: tokenAuth({ 'token-a': { userId: 'alice' } }),
      requestStateSecret: 'a shared secret of at least 32 bytes, for the test',
      onError: () => undefined,
    });
    const first = await call2026(http, {}, 'round-1');
    const [key] = Object.keys(first.inputRequests as object);
    expect(first.resultType).toBe('input_required');
    const second = await call2026(
      http,
      { inputResponses: { [key]: { action: 'accept', content: { decision: 'approve' } } }, requestState: first.requestState },
      'round-2',
    );
    expect(second.resultType).toBe('complete');
    expect(refunded.filter((order) => order === 'A-2')).toEqual(['A-2']);
  });
});

async function call2026(server: HttpHandle, extra: object, id: string | number = 1): Promise<Record<string, unknown>> {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'billing_agent',
      authorization: 'Bearer token-a',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name: 'billing_agent',
        arguments: { input: 'Refund A-1' },
        ...extra,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
        },
      },
    }),
  });
  const body = (await res.json()) as { result?: Record<string, unknown>; error?: unknown };
  if (!body.result) throw new Error(`no result: ${JSON.stringify(body.error)}`);
  return body.result;
}
