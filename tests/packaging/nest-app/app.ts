// A fresh NestJS 12 app (ESM, as Nest 12 is) using toolwright from the packed tarball: a tool as a
// provider with an injected service, the MCP and chat controllers behind a guard. Prints a summary.
import 'reflect-metadata';
import { Injectable, Module, UnauthorizedException, UseGuards, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { IsString, MinLength } from 'class-validator';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AgentContext, Param, ScriptedModel, Tool, ToolRegistry, type ToolInterface } from 'toolwright';
import { createChatController, createMcpController, ToolwrightModule } from 'toolwright/nestjs';

@Injectable()
class Orders {
  status(id: string): string {
    return id === 'A-1' ? 'shipped' : 'unknown';
  }
}

class OrderInput {
  @Param({ description: 'The order id' })
  @IsString()
  @MinLength(1)
  order_id!: string;
}

@Tool({ name: 'lookup_order', description: 'Look up an order', input: OrderInput })
@Injectable()
class LookupOrderTool implements ToolInterface<OrderInput> {
  constructor(private readonly orders: Orders) {}
  async execute(args: OrderInput, context: AgentContext) {
    return { order_id: args.order_id, status: this.orders.status(args.order_id), user: context.userId };
  }
}

@Injectable()
class BearerGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined>; user?: unknown }>();
    const match = /^Bearer (\w+)$/.exec(request.headers.authorization ?? '');
    if (!match) throw new UnauthorizedException();
    request.user = { id: match[1] };
    return true;
  }
}

const model = new ScriptedModel((request) => {
  const last = request.messages[request.messages.length - 1];
  if (last?.role === 'tool') return { text: `Result: ${last.content}` };
  return { toolCalls: [{ name: 'lookup_order', arguments: { order_id: 'A-1' } }] };
});

const Mcp = createMcpController({ path: 'mcp' });
UseGuards(BearerGuard)(Mcp);
const Chat = createChatController({ path: 'chat', agent: 'DESK' });
UseGuards(BearerGuard)(Chat);

@Module({
  imports: [ToolwrightModule.forFeature({ agents: [{ provide: 'DESK', useFactory: () => ({ name: 'desk', model }) }] })],
  providers: [Orders, LookupOrderTool, BearerGuard],
  controllers: [Mcp, Chat],
})
class DeskModule {}

@Module({ imports: [ToolwrightModule.forRoot({ store: { sqlite: { path: './state.db' } } }), DeskModule] })
class AppModule {}

// In a function rather than top-level await: the repo's own type-check (CommonJS) includes this file.
async function main(): Promise<void> {
  const app = await NestFactory.create(AppModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const base = await app.getUrl();
  try {
    const client = new Client({ name: 'nest-app', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: 'Bearer alice' } } }),
    );
    const tools = (await client.listTools()).tools.map((t) => t.name);
    const valid = await client.callTool({ name: 'lookup_order', arguments: { order_id: 'A-1' } });
    const invalid = await client.callTool({ name: 'lookup_order', arguments: { order_id: '' } });
    await client.close();
    const text = (result: typeof valid) => JSON.parse((result.content as { text: string }[])[0].text) as Record<string, unknown>;
    const anonymous = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const chat = await fetch(`${base}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer bob' },
      body: JSON.stringify({
        id: 'chat-1',
        trigger: 'submit-message',
        messages: [{ id: 'm-1', role: 'user', parts: [{ type: 'text', text: 'Where is A-1?' }] }],
      }),
    });
    const stream = await chat.text();
    console.log(
      JSON.stringify({
        registry: [...app.get(ToolRegistry).names()],
        tools,
        valid: text(valid),
        invalid: text(invalid).code,
        anonymous: anonymous.status,
        chat: {
          status: chat.status,
          toolOutput: stream.includes('"type":"tool-output-available"'),
          byBob: stream.includes('\\"user\\":\\"bob\\"'),
        },
      }),
    );
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
