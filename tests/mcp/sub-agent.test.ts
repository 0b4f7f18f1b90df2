/**
 * An agent tool over MCP whose child run needs approval: MCP cannot pause the calling client's run,
 * so the call ends with the pause (ChildRunPausedError, as an error result the client's model reads); the child's
 * call is neither run nor approved by itself, and stays paused in the child's session.
 */
import 'reflect-metadata';
import { IsString, MinLength } from 'class-validator';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Agent, InMemoryStore, Param, ScriptedModel, Tool, ToolRegistry, type ToolInterface } from '../../src';
import { createMcpServer } from '../../src/mcp';

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
});

describe('an agent tool over MCP whose child needs approval', () => {
  it('answers with the pause as an error result; the refund neither runs nor is approved; the child keeps it paused', async () => {
    const store = new InMemoryStore();
    const billing = new Agent({
      name: 'billing',
      model: new ScriptedModel([{ toolCalls: [{ id: 'r1', name: 'process_refund', arguments: { order_id: 'A-1' } }] }]),
      tools: [RefundTool],
      store,
    });
    const registry = await ToolRegistry.buildAsync({ tools: [], mcp: [billing.asTool({ name: 'billing_agent', description: 'Refunds' })] });
    const server = createMcpServer(registry, { onError: () => undefined });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'sub-agent-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);

    const result = (await client.callTool({ name: 'billing_agent', arguments: { input: 'Refund A-1' } })) as CallToolResult;

    expect(result.isError).toBe(true);
    // The registry reports what the tool threw as TOOL_FAILED, with the pause's words (the child's session in them).
    const error = JSON.parse((result.content[0] as { text: string }).text) as { code: string; message: string };
    expect(error.code).toBe('TOOL_FAILED');
    expect(error.message).toMatch(/Agent "billing", called as a tool, paused: r1/);
    expect(refunded).toEqual([]);
    const session = /session "([^"]+)"/.exec(error.message)?.[1];
    expect(session).toMatch(/\/billing_agent:/);
    const saved = await store.loadSession({ sessionId: session! });
    const pending = (saved?.pendingRun as { approvals: { toolCallId: string; name: string }[] }).approvals;
    expect(pending.map((p) => [p.toolCallId, p.name])).toEqual([['r1', 'process_refund']]);
  });
});
