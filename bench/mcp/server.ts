/**
 * One MCP server for bench/mcp/run.ts, in its own process: `toolwright` (serveHttp) or `sdk`
 * (the MCP SDK's own McpServer with a zod schema, one per session, behind the same node:http
 * front). Both serve the same process_refund tool. Tells the parent its port; answers `rss`
 * (after a full GC) over IPC.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IsNumber, IsOptional, IsString, Min, MinLength } from 'class-validator';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { Param, Tool, ToolRegistry, type AgentContext, type ToolInterface } from '../../src/index';
import { serveHttp } from '../../src/mcp/serve';

const ORDERS = new Map(Array.from({ length: 1000 }, (_, i) => [`A-${i}`, { total: 10 + i }]));

function refund(orderId: string, amount: number | undefined): string {
  const order = ORDERS.get(orderId);
  if (!order) return JSON.stringify({ status: 'not_found', order_id: orderId });
  return JSON.stringify({ status: 'success', refund_id: `R-${orderId}`, amount: amount ?? order.total });
}

class RefundInput {
  @Param({ description: 'The order ID to refund' }) @IsString() @MinLength(1) order_id!: string;
  @Param({ description: 'Refund amount (optional for partial refunds)' }) @IsOptional() @IsNumber() @Min(0) amount?: number;
  @Param({ description: 'Reason for refund' }) @IsString() @MinLength(1) reason!: string;
}

@Tool({ name: 'process_refund', description: 'Process a refund for an order', input: RefundInput })
class RefundProcessorTool implements ToolInterface<RefundInput> {
  async execute(args: RefundInput, _context: AgentContext): Promise<string> {
    return refund(args.order_id, args.amount);
  }
}

async function startToolwright(): Promise<number> {
  const handle = await serveHttp(ToolRegistry.build({ tools: [RefundProcessorTool] }), { onError: () => undefined });
  return handle.port;
}

async function startSdk(): Promise<number> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const newServer = () => {
    const server = new McpServer({ name: 'sdk', version: '0.0.0' });
    server.registerTool(
      'process_refund',
      {
        description: 'Process a refund for an order',
        inputSchema: { order_id: z.string().min(1), amount: z.number().min(0).optional(), reason: z.string().min(1) },
      },
      async ({ order_id, amount }) => ({ content: [{ type: 'text', text: refund(order_id, amount) }] }),
    );
    return server;
  };
  const readJson = (req: IncomingMessage) =>
    new Promise<unknown>((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch (e) {
          reject(e instanceof Error ? e : new Error(String(e)));
        }
      });
    });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const id = req.headers['mcp-session-id'] as string | undefined;
    if (id) {
      const transport = transports.get(id);
      if (!transport) return void res.writeHead(404).end();
      return transport.handleRequest(req, res);
    }
    const body = await readJson(req);
    if (!isInitializeRequest(body)) return void res.writeHead(400).end();
    const server = newServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void transports.set(sid, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
  const http = createServer((req, res) => void handle(req, res).catch(() => res.writeHead(500).end()));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return (http.address() as AddressInfo).port;
}

async function main() {
  const kind = process.argv[2];
  const port = kind === 'sdk' ? await startSdk() : await startToolwright();
  process.on('message', (m) => {
    if (m === 'cpu') process.send!({ cpu: process.cpuUsage() });
    if (m === 'rss') {
      (global as { gc?: () => void }).gc?.();
      process.send!({ rss: process.memoryUsage().rss, cpu: process.cpuUsage() });
    }
  });
  process.send!({ port });
}

void main();
