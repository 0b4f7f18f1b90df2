import { AgentContext, ToolInputError } from 'toolwright';
import { createSupportApp } from './app';

const signedIn = (userId: string, tenantId = 'acme') =>
  new AgentContext({ sessionId: 's-1', userId, tenantId, state: { user_id: userId } });

async function listOrders(args: object, context = signedIn('alice')) {
  const { registry } = createSupportApp();
  return JSON.parse(await registry.call('user_orders', args, context));
}

describe('user_orders', () => {
  it('declares limit as an integer from 1 to 50, 10 by default, optional', () => {
    const { registry } = createSupportApp();
    expect(registry.get('user_orders').definition().parameters).toEqual({
      type: 'object',
      properties: {
        limit: { type: 'integer', minimum: 1, maximum: 50, default: 10, description: 'How many of the most recent orders to return' },
      },
      additionalProperties: false,
    });
  });

  it("lists the signed-in customer's ten newest orders by default", async () => {
    const result = await listOrders({});
    expect(result.status).toBe('success');
    expect(result.orders).toHaveLength(10);
    expect(result.orders.slice(0, 3).map((o: { id: string }) => o.id)).toEqual(['A-100', 'A-101', 'A-1012']);
    expect(result.orders[0]).toEqual({
      id: 'A-100',
      totalCents: 5990,
      currency: 'USD',
      fulfillmentStatus: 'shipped',
      createdAt: '2026-03-02T10:15:00.000Z',
    });
  });

  it('honours limit, and null means the default', async () => {
    expect((await listOrders({ limit: 2 })).orders.map((o: { id: string }) => o.id)).toEqual(['A-100', 'A-101']);
    expect((await listOrders({ limit: 50 })).orders).toHaveLength(14);
    expect((await listOrders({ limit: null })).orders).toHaveLength(10);
  });

  it('shows each customer only their own orders', async () => {
    expect((await listOrders({}, signedIn('bob'))).orders.map((o: { id: string }) => o.id)).toEqual(['A-200']);
    expect((await listOrders({}, signedIn('nobody'))).orders).toEqual([]);
  });

  it("never lists another tenant's orders, even of a user with the same name", async () => {
    const acme = (await listOrders({ limit: 50 }, signedIn('alice', 'acme'))).orders.map((o: { id: string }) => o.id);
    expect(acme).not.toContain('G-301');
    expect(acme.every((id: string) => id.startsWith('A-'))).toBe(true);
    expect((await listOrders({ limit: 50 }, signedIn('alice', 'globex'))).orders.map((o: { id: string }) => o.id)).toEqual(['G-301']);
  });

  it('requires a signed-in user', async () => {
    expect(await listOrders({}, new AgentContext({ sessionId: 's-2' }))).toEqual({
      status: 'error',
      message: 'User authentication required',
    });
    // A user without a tenant is not signed in to any shop.
    expect(await listOrders({}, new AgentContext({ sessionId: 's-3', userId: 'alice', state: { user_id: 'alice' } }))).toEqual({
      status: 'error',
      message: 'User authentication required',
    });
  });

  it.each([
    [0, 'min', 'limit must not be less than 1'],
    [51, 'max', 'limit must not be greater than 50'],
    [2.5, 'isInt', 'limit must be an integer number'],
    ['5', 'isInt', 'limit must be an integer number'],
  ])('rejects limit %p (%s)', async (limit, constraint, message) => {
    const { registry } = createSupportApp();
    const error = await registry.call('user_orders', { limit }, signedIn('alice')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolInputError);
    expect((error as ToolInputError).errors).toEqual([{ path: 'limit', constraint, message }]);
  });
});
