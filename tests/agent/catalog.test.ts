import { IsString } from 'class-validator';
import {
  Agent,
  AgentContext,
  InMemoryStore,
  Param,
  ScriptedModel,
  Tool,
  ToolCatalog,
  ToolRegistry,
  ToolwrightConfigError,
  type ClassType,
  type ContainerLike,
  type ToolDefinition,
  type ToolInterface,
} from 'toolwright';

class NoteInput {
  @Param({ description: 'Text' }) @IsString() text!: string;
}

const enabledChecks: Array<string | undefined> = [];

@Tool({ name: 'list_orders', description: 'List orders', input: NoteInput, tags: ['orders'] })
class ListOrdersTool implements ToolInterface<NoteInput> {
  execute() {
    return { orders: [] };
  }
}

@Tool({ name: 'send_invoice', description: 'Send an invoice', input: NoteInput, tags: ['billing'] })
class SendInvoiceTool implements ToolInterface<NoteInput> {
  execute() {
    return { sent: true };
  }
}

@Tool({ name: 'delete_customer', description: 'Delete a customer account', input: NoteInput, tags: ['admin'] })
class DeleteCustomerTool implements ToolInterface<NoteInput> {
  ran = 0;
  isEnabled(context: AgentContext) {
    enabledChecks.push(context.userId);
    return context.userId === 'admin';
  }
  execute() {
    this.ran++;
    return { deleted: true };
  }
}

const offered = (model: ScriptedModel, turn = 0) => model.requests[turn].tools.map((t) => t.name);
const tools = [ListOrdersTool, SendInvoiceTool, DeleteCustomerTool];

beforeEach(() => (enabledChecks.length = 0));

describe('per-turn tool catalog', () => {
  it('offers only tools with the agent’s tags, narrowed further per run', async () => {
    const model = new ScriptedModel([{ text: 'a' }, { text: 'b' }]);
    const agent = new Agent({ store: new InMemoryStore(), name: 'a', model, tools, catalog: { tags: ['orders', 'billing'] } });
    await agent.run('hi', { sessionId: 's-1', userId: 'u-1' });
    await agent.run('hi', { sessionId: 's-1', userId: 'u-1', tags: ['billing'] });
    expect(offered(model, 0)).toEqual(['list_orders', 'send_invoice']);
    expect(offered(model, 1)).toEqual(['send_invoice']);
  });

  it("asks isEnabled with the real user's context, and refuses a call to a tool that was not offered", async () => {
    const registry = ToolRegistry.build({ tools });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'delete_customer', arguments: { text: 'bob' } }] }, { text: 'cannot' }]);
    const result = await new Agent({ store: new InMemoryStore(), name: 'a', model, tools: registry }).run('delete bob', {
      sessionId: 's-1',
      userId: 'u-1',
    });

    expect(enabledChecks).toContain('u-1');
    expect(offered(model)).toEqual(['list_orders', 'send_invoice']);
    expect(result.toolCalls[0]).toMatchObject({ status: 'error', code: 'TOOL_NOT_FOUND' });
    expect(JSON.parse(result.toolCalls[0].result).message.split('Available tools:')[1]).not.toContain('delete_customer');
    expect((registry.get('delete_customer') as unknown as DeleteCustomerTool).ran).toBe(0);

    const admin = new ScriptedModel([{ toolCalls: [{ name: 'delete_customer', arguments: { text: 'bob' } }] }, { text: 'done' }]);
    await new Agent({ store: new InMemoryStore(), name: 'a', model: admin, tools: registry }).run('delete bob', {
      sessionId: 's-2',
      userId: 'admin',
    });
    expect(offered(admin)).toContain('delete_customer');
    expect((registry.get('delete_customer') as unknown as DeleteCustomerTool).ran).toBe(1);
  });

  it('authorize sees the tool and the real user', async () => {
    const seen: string[] = [];
    const model = new ScriptedModel([{ text: 'ok' }]);
    await new Agent({
      store: new InMemoryStore(),
      name: 'a',
      model,
      tools: [ListOrdersTool, SendInvoiceTool],
      catalog: {
        authorize: (tool, context) => {
          seen.push(`${tool.name}:${context.userId}:${context.tenantId}`);
          return !tool.tags.includes('billing') || context.getState('plan') === 'pro';
        },
      },
    }).run('hi', { sessionId: 's-1', userId: 'u-9', tenantId: 't-1' });
    expect(seen).toEqual(['list_orders:u-9:t-1', 'send_invoice:u-9:t-1']);
    expect(offered(model)).toEqual(['list_orders']);
  });

  describe('top-k search over a large catalog', () => {
    const VOCAB = [
      'shipment',
      'warehouse',
      'inventory',
      'ticket',
      'coupon',
      'invoice',
      'address',
      'customer',
      'report',
      'label',
      'carrier',
      'stock',
    ];
    const VERBS = ['create', 'update', 'list', 'archive', 'export', 'sync', 'audit', 'merge'];
    const calls: string[] = [];

    function generated(count: number): ClassType[] {
      const classes: ClassType[] = [];
      const make = (def: ToolDefinition, guarded = false) =>
        class implements ToolInterface {
          definition() {
            return def;
          }
          isEnabled(context: AgentContext) {
            calls.push(def.name);
            return !guarded || context.userId === 'finance';
          }
          execute() {
            return { ok: def.name };
          }
        };
      const params = { type: 'object' as const, properties: { id: { type: 'string' as const } }, additionalProperties: false };
      for (let i = 0; i < count; i++) {
        const verb = VERBS[i % VERBS.length];
        const noun = VOCAB[Math.floor(i / VERBS.length) % VOCAB.length];
        const other = VOCAB[(i * 7) % VOCAB.length];
        classes.push(
          make({
            name: `${verb}_${noun}_${i}`,
            description: `${verb} a ${noun} record linked to a ${other} (variant ${i})`,
            parameters: params,
          }),
        );
      }
      classes.push(make({ name: 'process_refund', description: 'Process a refund for a damaged or lost order', parameters: params }));
      classes.push(
        make({ name: 'approve_refund_exception', description: 'Approve a refund outside the policy window', parameters: params }, true),
      );
      return classes;
    }

    const container: ContainerLike = { get: (cls) => new cls() };
    let registry: ToolRegistry;
    beforeAll(() => {
      registry = ToolRegistry.build({ tools: generated(2000), container });
    });
    beforeEach(() => (calls.length = 0));

    it('sends the best k tools for the user message, filtering only the hits', async () => {
      expect(registry.names()).toHaveLength(2002);
      const model = new ScriptedModel([{ toolCalls: [{ name: 'process_refund', arguments: { id: 'A-1' } }] }, { text: 'done' }]);
      const agent = new Agent({ store: new InMemoryStore(), name: 'a', model, tools: registry, catalog: { topK: 5 } });
      const result = await agent.run('I need a refund, my order arrived damaged', { sessionId: 's-1', userId: 'u-1' });

      expect(offered(model)[0]).toBe('process_refund');
      expect(offered(model)).not.toContain('approve_refund_exception');
      expect(offered(model).length).toBeLessThanOrEqual(5);
      expect(result.toolCalls[0].status).toBe('ok');
      // isEnabled ran on search hits only, not on 2,000 tools (twice: once per model turn).
      expect(calls.length).toBeLessThan(100);
    });

    it('a user allowed to see a guarded tool gets it', async () => {
      const model = new ScriptedModel([{ text: 'ok' }]);
      await new Agent({ store: new InMemoryStore(), name: 'a', model, tools: registry, catalog: { topK: 3 } }).run(
        'approve a refund exception',
        { sessionId: 's-2', userId: 'finance' },
      );
      expect(offered(model)[0]).toBe('approve_refund_exception');
    });

    it('always-offered tools come first, and a message with no match offers only them', async () => {
      const model = new ScriptedModel([{ text: 'a' }, { text: 'b' }]);
      const agent = new Agent({
        store: new InMemoryStore(),
        name: 'a',
        model,
        tools: registry,
        catalog: { topK: 3, always: ['list_warehouse_10'] },
      });
      await agent.run('shipment carrier label', { sessionId: 's-3', userId: 'u-1' });
      await agent.run('zzzz qqqq', { sessionId: 's-4', userId: 'u-1' });
      expect(offered(model, 0)[0]).toBe('list_warehouse_10');
      expect(offered(model, 0)).toHaveLength(4);
      expect(model.requests[0].tools.slice(1).every((t) => /shipment|carrier|label/.test(t.description))).toBe(true);
      expect(offered(model, 1)).toEqual(['list_warehouse_10']);
    });

    it('builds one search index per registry, shared by catalogs', () => {
      const context = new AgentContext({ sessionId: 's', userId: 'u' });
      const a = new ToolCatalog(registry, { topK: 2 });
      const b = new ToolCatalog(registry, { topK: 2 });
      return Promise.all([a.select(context, 'refund'), b.select(context, 'refund')]).then(([x, y]) => {
        expect(x.definitions.map((d) => d.name)).toEqual(y.definitions.map((d) => d.name));
        expect(x.offered?.has('process_refund')).toBe(true);
      });
    });
  });

  it('rejects bad catalog options at construction', () => {
    const model = new ScriptedModel([]);
    expect(() => new Agent({ store: new InMemoryStore(), name: 'a', model, tools, catalog: { topK: 0 } })).toThrow(ToolwrightConfigError);
    expect(() => new Agent({ store: new InMemoryStore(), name: 'a', model, tools, catalog: { always: ['nope'] } })).toThrow(/nope/);
  });
});
