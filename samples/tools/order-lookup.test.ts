import { AgentContext, ToolInputError } from 'toolwright';
import { createSupportApp } from './app';
import { LAST_ORDER_ID } from './order-lookup.tool';

const signedIn = (userId: string) => new AgentContext({ sessionId: 's-1', userId, tenantId: 'acme', state: { user_id: userId } });

async function call(args: string | object, context = signedIn('alice')) {
  const { registry } = createSupportApp();
  return JSON.parse(await registry.call('order_lookup', args, context));
}

async function inputError(args: string | object): Promise<ToolInputError> {
  const { registry } = createSupportApp();
  const error = await registry.call('order_lookup', args, signedIn('alice')).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ToolInputError);
  return error as ToolInputError;
}

describe('order_lookup', () => {
  it("generates exactly the PHP kit's definition (closed to extra properties, our one addition)", () => {
    const { registry } = createSupportApp();
    expect(registry.get('order_lookup').definition()).toEqual({
      name: 'order_lookup',
      description: 'Look up order information by ID',
      parameters: {
        type: 'object',
        properties: {
          order_id: { type: 'string', description: 'The order ID to look up' },
          include_items: { type: 'boolean', description: 'Include order items in response' },
        },
        required: ['order_id'],
        additionalProperties: false,
      },
    });
  });

  it("returns the signed-in customer's order, items only when asked", async () => {
    const plain = await call('{"order_id":"A-100"}');
    expect(plain).toEqual({
      status: 'success',
      order: { id: 'A-100', totalCents: 5990, currency: 'USD', fulfillmentStatus: 'shipped', createdAt: '2026-03-02T10:15:00.000Z' },
    });

    const withItems = await call({ order_id: 'A-100', include_items: true });
    expect(withItems.order.items).toEqual([
      { sku: 'MUG-01', name: 'Enamel mug', quantity: 2, unitPriceCents: 1495 },
      { sku: 'TEE-07', name: 'Logo T-shirt', quantity: 1, unitPriceCents: 3000 },
    ]);
  });

  it('remembers the order in the session as last_order_id', async () => {
    const context = signedIn('alice');
    await call({ order_id: 'A-101' }, context);
    expect(context.getState(LAST_ORDER_ID)).toBe('A-101');
  });

  it("answers another customer's order exactly like a missing one, and does not remember it", async () => {
    const context = signedIn('alice');
    expect(await call({ order_id: 'A-200' }, context)).toEqual({ status: 'error', message: 'Order not found' });
    expect(await call({ order_id: 'NOPE-1' }, context)).toEqual({ status: 'error', message: 'Order not found' });
    expect(context.hasState(LAST_ORDER_ID)).toBe(false);
  });

  it("answers another tenant's order like a missing one, even to a user of the same name", async () => {
    // G-301 belongs to alice of tenant globex.
    expect(await call({ order_id: 'G-301' }, signedIn('alice'))).toEqual({ status: 'error', message: 'Order not found' });
    const globexAlice = new AgentContext({ sessionId: 's-g', userId: 'alice', tenantId: 'globex', state: { user_id: 'alice' } });
    expect(await call({ order_id: 'G-301' }, globexAlice)).toMatchObject({ status: 'success', order: { id: 'G-301', currency: 'EUR' } });
    expect(await call({ order_id: 'A-100' }, globexAlice)).toEqual({ status: 'error', message: 'Order not found' });
  });

  it('requires a signed-in user', async () => {
    const anonymous = new AgentContext({ sessionId: 's-2' });
    expect(await call({ order_id: 'A-100' }, anonymous)).toEqual({ status: 'error', message: 'User authentication required' });
  });

  it('rejects wrong types, missing and unknown fields with per-field errors', async () => {
    expect((await inputError({ order_id: 100 })).errors).toEqual([
      { path: 'order_id', constraint: 'isString', message: 'order_id must be a string' },
    ]);
    expect((await inputError({ order_id: 'A-100', include_items: 'yes' })).errors).toEqual([
      { path: 'include_items', constraint: 'isBoolean', message: 'include_items must be a boolean value' },
    ]);
    expect((await inputError({ include_items: true })).errors).toMatchObject([{ path: 'order_id', constraint: 'isDefined' }]);
    expect((await inputError({ order_id: 'A-100', customer: 'bob' })).errors).toMatchObject([
      { path: 'customer', constraint: 'whitelistValidation' },
    ]);
  });

  it('rejects malformed JSON as INVALID_JSON', async () => {
    const error = await inputError('{"order_id": "A-100"');
    expect(error.code).toBe('INVALID_JSON');
    expect(JSON.parse(error.toToolResult())).toMatchObject({ status: 'error', code: 'INVALID_JSON' });
  });
});
