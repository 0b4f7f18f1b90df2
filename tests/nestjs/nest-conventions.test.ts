/**
 * toolwright/nestjs and Nest's own conventions: a provider Nest cannot build fails the app's start
 * with Nest's words (module and token) and no typedi advice; @nestjs/testing overrides reach the
 * tools; a ValidationPipe DTO is a tool input as it is, and both give the same verdicts;
 * forRootAsync takes injected config; the guard's user is the one `authorize` sees on the MCP and
 * chat endpoints; a denied approval runs nothing.
 */
import { Body, Controller, Inject, Injectable, Module, Post, UseGuards, ValidationPipe, type INestApplication } from '@nestjs/common';
import { ModuleRef, NestFactory } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { AgentContext, InMemoryStore, Tool, ToolRegistry, type Authorizable, type ToolInputError, type ToolInterface } from 'toolwright';
import { createChatController, createMcpController, fromNest, NEST_ADVICE, TOOLWRIGHT_STORE, ToolwrightModule } from 'toolwright/nestjs';
import { ChatClient } from '../../samples/chat-desk/chat-client';
import { appModule, BearerGuard, deskModel, DeskModule, OrderInput, OrdersService, refunds } from './desk-app';

const TYPEDI_WORDS = /typedi|@Service|Container\.set/;

function context(userId = 'alice'): AgentContext {
  return new AgentContext({ sessionId: `s-${userId}`, userId });
}

describe('a provider Nest cannot build', () => {
  class MissingService {}

  @Tool({ name: 'broken', description: 'Needs a service nobody provides', input: OrderInput })
  @Injectable()
  class BrokenTool implements ToolInterface<OrderInput> {
    constructor(readonly missing: MissingService) {}
    execute() {
      return { ok: true };
    }
  }

  @Tool({ name: 'broken_token', description: 'Needs a token nobody provides', input: OrderInput })
  @Injectable()
  class BrokenTokenTool implements ToolInterface<OrderInput> {
    constructor(@Inject('PAYMENTS_API') readonly payments: unknown) {}
    execute() {
      return { ok: true };
    }
  }

  async function startFails(module: unknown): Promise<Error> {
    @Module({ imports: [ToolwrightModule.forRoot({ store: new InMemoryStore() }), module as never] })
    class Root {}
    return NestFactory.create(Root, { logger: false, abortOnError: false }).then(
      async (app) => {
        await app.close();
        throw new Error('the app started');
      },
      (error: Error) => error,
    );
  }

  it("fails the app's start naming the tool, the missing class and the module; no typedi advice", async () => {
    @Module({ providers: [BrokenTool] })
    class BillingModule {}
    const error = await startFails(BillingModule);
    expect(error.message).toMatch(/BrokenTool/);
    expect(error.message).toMatch(/MissingService/);
    expect(error.message).toMatch(/BillingModule/);
    expect(error.message).not.toMatch(TYPEDI_WORDS);
  });

  it('names an @Inject token nobody provides, and the module', async () => {
    @Module({ providers: [BrokenTokenTool] })
    class PaymentsModule {}
    const error = await startFails(PaymentsModule);
    expect(error.message).toMatch(/BrokenTokenTool/);
    expect(error.message).toMatch(/PAYMENTS_API/);
    expect(error.message).toMatch(/PaymentsModule/);
    expect(error.message).not.toMatch(TYPEDI_WORDS);
  });

  it('a tool listed in forFeature without the imports its services need names the feature module', async () => {
    @Module({})
    class EmptyFeature {}
    const error = await startFails({ module: EmptyFeature, imports: [ToolwrightModule.forFeature([BrokenTool])] });
    expect(error.message).toMatch(/BrokenTool/);
    expect(error.message).toMatch(/ToolwrightFeatureModule/);
    expect(error.message).not.toMatch(TYPEDI_WORDS);
  });

  it("fromNest on a class no module provides: a build error with Nest's advice, not typedi's", async () => {
    const app = await NestFactory.create(appModule(new InMemoryStore()), { logger: false });
    try {
      @Tool({ name: 'stray', description: 'Provided by no module', input: OrderInput })
      class StrayTool implements ToolInterface<OrderInput> {
        execute() {
          return {};
        }
      }
      let error: Error | undefined;
      try {
        ToolRegistry.build({ tools: [StrayTool], container: fromNest(app.get(ModuleRef)) });
      } catch (thrown) {
        error = thrown as Error;
      }
      expect(error?.message).toMatch(/StrayTool/);
      expect(error?.message).toContain(NEST_ADVICE);
      expect(error?.message).not.toMatch(TYPEDI_WORDS);
      expect(error?.message).not.toMatch(/[^.]\.\.(?!\.)/); // no doubled period where the messages meet
    } finally {
      await app.close();
    }
  });
});

describe('@nestjs/testing', () => {
  it('Test.createTestingModule with overridden providers: the tool gets the overrides', async () => {
    const audit: string[] = [];
    const moduleRef = await Test.createTestingModule({ imports: [appModule(new InMemoryStore())] })
      .overrideProvider(OrdersService)
      .useValue({ status: (id: string) => `fake status of ${id}` })
      .overrideProvider('AUDIT_LOG')
      .useValue(audit)
      .compile();
    await moduleRef.init();
    try {
      const result = await moduleRef.get(ToolRegistry).call('lookup_order', { order_id: 'B-7' }, context('dave'));
      expect(JSON.parse(result)).toEqual({ order_id: 'B-7', status: 'fake status of B-7' });
      expect(audit).toEqual(['dave looked up B-7']);
    } finally {
      await moduleRef.close();
    }
  });

  it('the Agent provider of a testing module runs its tools (the approval-gated refund pauses)', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [appModule(new InMemoryStore())] }).compile();
    await moduleRef.init();
    try {
      const agent = moduleRef.get<{ run(input: string, options: object): Promise<{ status: string }> }>('DESK');
      const result = await agent.run('Refund A-1', { sessionId: 'testing-1', userId: 'alice' });
      expect(result.status).toBe('paused');
    } finally {
      await moduleRef.close();
    }
  });
});

describe('a ValidationPipe DTO as a tool input', () => {
  /** A DTO as a Nest app writes it for `@Body()`: class-validator only, no toolwright decorator. */
  class CreateTicketDto {
    @IsString()
    @Length(3, 40)
    subject!: string;

    @IsIn(['low', 'normal', 'urgent'])
    priority!: string;

    @IsOptional()
    @IsInt()
    @Min(1)
    @Max(5)
    severity?: number;
  }

  const created: unknown[] = [];

  @Controller('tickets')
  class TicketsController {
    @Post()
    create(@Body() dto: CreateTicketDto) {
      created.push(dto);
      return { created: true };
    }
  }

  @Tool({ name: 'create_ticket', description: 'Open a support ticket', input: CreateTicketDto })
  @Injectable()
  class CreateTicketTool implements ToolInterface<CreateTicketDto> {
    execute(args: CreateTicketDto) {
      created.push(args);
      return { created: true };
    }
  }

  @Module({
    imports: [ToolwrightModule.forRoot({ store: new InMemoryStore() })],
    providers: [CreateTicketTool],
    controllers: [TicketsController],
  })
  class TicketsApp {}

  let app: INestApplication;
  let base: string;
  beforeAll(async () => {
    app = await NestFactory.create(TicketsApp, { logger: false });
    app.useGlobalPipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true }));
    await app.listen(0, '127.0.0.1');
    base = await app.getUrl();
  });
  afterAll(() => app.close());

  const payloads: Record<string, unknown>[] = [
    { subject: 'Broken mug', priority: 'urgent' },
    { subject: 'Broken mug', priority: 'urgent', severity: 3 },
    { subject: 'Hi', priority: 'urgent' },
    { subject: 'Broken mug', priority: 'whenever' },
    { subject: 'Broken mug', priority: 'low', severity: 9 },
    { subject: 'Broken mug', priority: 'low', severity: '3' },
    { subject: 42, priority: 'low' },
    { priority: 'low' },
    { subject: 'Broken mug', priority: 'low', admin: true },
  ];

  const failing = (messages: string[]) => [...new Set(messages.map((m) => /^(?:property )?(\w+)/.exec(m)![1]))].sort();

  it.each(payloads)('the controller and the tool give the same verdict on the same properties: %j', async (payload) => {
    const response = await fetch(`${base}/tickets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    });
    const pipe = (await response.json()) as { message?: string[] };
    // The registry refuses bad arguments with a typed error (a runner turns it into the model's tool result).
    const tool = await app
      .get(ToolRegistry)
      .call('create_ticket', payload, context())
      .then(
        (text) => JSON.parse(text) as { code?: string; errors?: { message: string }[] },
        (error: ToolInputError) => ({ code: error.code, errors: error.errors }),
      );
    expect(tool.code === 'INVALID_ARGUMENTS').toBe(response.status === 400);
    // The same failing properties (class-validator's messages start with the property); toolwright
    // names one failure a property (the type first), where the pipe lists every constraint.
    if (response.status === 400) expect(failing(tool.errors!.map((e) => e.message))).toEqual(failing(pipe.message!));
    else expect(tool).toEqual({ created: true });
  });

  it('the tool schema is built from the DTO as it is', () => {
    const [definition] = app.get(ToolRegistry).definitions();
    expect(definition.parameters).toMatchObject({
      type: 'object',
      required: ['subject', 'priority'],
      properties: {
        subject: { type: 'string', minLength: 3, maxLength: 40 },
        priority: { enum: ['low', 'normal', 'urgent'] },
        severity: { type: 'integer', minimum: 1, maximum: 5 },
      },
    });
  });
});

describe('forRootAsync with injected config; the guard user reaching authorize on both endpoints', () => {
  interface DeskConfig {
    noRefundsFor: string;
    store: InMemoryStore;
  }
  const CONFIG = 'DESK_CONFIG';
  const seen: string[] = [];
  const store = new InMemoryStore();

  @Module({ providers: [{ provide: CONFIG, useFactory: (): DeskConfig => ({ noRefundsFor: 'erin', store }) }], exports: [CONFIG] })
  class ConfigModule {}

  const Chat = createChatController({ path: 'chat', agent: 'DESK' });
  UseGuards(BearerGuard)(Chat);
  const Mcp = createMcpController({ path: 'mcp' });
  UseGuards(BearerGuard)(Mcp);

  @Module({
    imports: [
      ToolwrightModule.forRootAsync({
        imports: [ConfigModule],
        inject: [CONFIG],
        useFactory: (config: DeskConfig) => ({
          store: config.store,
          authorize: (tool: Authorizable, ctx: AgentContext) => {
            seen.push(`${tool.name}:${ctx.userId ?? '(none)'}`);
            return !(tool.name === 'process_refund' && ctx.userId === config.noRefundsFor);
          },
        }),
      }),
      ToolwrightModule.forFeature({ agents: [{ provide: 'DESK', useFactory: () => ({ name: 'desk', model: deskModel() }) }] }),
      DeskModule,
    ],
    controllers: [Chat, Mcp],
  })
  class AsyncApp {}

  let app: INestApplication;
  let base: string;
  beforeEach(async () => {
    seen.length = 0;
    refunds.length = 0;
    app = await NestFactory.create(AsyncApp, { logger: false });
    await app.listen(0, '127.0.0.1');
    base = await app.getUrl();
  });
  afterEach(() => app.close());

  it('the store comes from the config', () => {
    expect(app.get(TOOLWRIGHT_STORE)).toBe(store);
  });

  it("MCP: authorize sees the guard's user; the configured one is not offered the refund", async () => {
    const answers: Record<string, { tools: string[]; refund: string }> = {};
    for (const user of ['frank', 'erin']) {
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${user}` } } }),
      );
      const tools = (await client.listTools()).tools.map((t) => t.name);
      const result = await client.callTool({ name: 'process_refund', arguments: { order_id: `${user}-1` } });
      answers[user] = { tools, refund: (result.content as { text: string }[])[0].text };
      await client.close();
    }
    expect(answers.frank.tools).toContain('process_refund');
    expect(answers.erin.tools).not.toContain('process_refund');
    // frank may: the refund waits for an approval a stateless MCP call cannot give; erin may not.
    expect(answers.frank.refund).toContain('APPROVAL_REQUIRED');
    expect(answers.erin.refund).toContain('TOOL_NOT_FOUND');
    expect(seen).toEqual(expect.arrayContaining(['process_refund:frank', 'process_refund:erin']));
    expect(seen.filter((s) => s.endsWith(':(none)'))).toEqual([]);
    expect(refunds).toEqual([]);
  });

  it("chat: authorize sees the guard's user; the approval round-trips for frank, erin gets no refund", async () => {
    const frank = new ChatClient(`${base}/chat`, { id: 'async-frank', headers: { authorization: 'Bearer frank' } });
    await frank.sendMessage({ text: 'Refund A-1 please' });
    expect(frank.pendingApprovals).toHaveLength(1);
    await frank.decideAll(true);
    expect(frank.error).toBeUndefined();
    const erin = new ChatClient(`${base}/chat`, { id: 'async-erin', headers: { authorization: 'Bearer erin' } });
    await erin.sendMessage({ text: 'Refund A-1 please' });
    expect(erin.pendingApprovals).toEqual([]);
    expect(seen).toEqual(expect.arrayContaining(['process_refund:frank', 'process_refund:erin']));
    expect(seen.filter((s) => s.endsWith(':(none)'))).toEqual([]);
    expect(refunds).toEqual(['A-1 for frank']);
  });

  it('chat: a denied approval runs nothing, and the chat restored by GET shows it denied', async () => {
    const frank = new ChatClient(`${base}/chat`, { id: 'async-deny', headers: { authorization: 'Bearer frank' } });
    await frank.sendMessage({ text: 'Refund A-1 please' });
    await frank.decideAll(false, 'not now');
    expect(frank.error).toBeUndefined();
    expect(refunds).toEqual([]);
    const restored = await fetch(`${base}/chat?id=async-deny`, { headers: { authorization: 'Bearer frank' } });
    expect(restored.status).toBe(200);
    expect(JSON.stringify(await restored.json())).toContain('output-denied');
  });
});
