import { AgentContext, ToolExecutionError, ToolInputError, ToolOutputError } from 'toolwright';
import { createSupportApp } from './app';
import { OrderAccessService } from './order-access.service';
import { OrderDatabase, seedOrders, type FulfillmentStatus } from './orders.db';

const customer = (tenantId: string | undefined, userId: string | undefined) => new AgentContext({ sessionId: 's-1', tenantId, userId });

async function lookup(orderId: string, context: AgentContext, app = createSupportApp()) {
  return JSON.parse(await app.registry.call('lookup_order', { orderId }, context));
}

describe('lookup_order', () => {
  it('returns the found state to the owner', async () => {
    expect(await lookup('A-100', customer('acme', 'alice'))).toEqual({ status: 'found', orderId: 'A-100', fulfillmentStatus: 'shipped' });
  });

  it('returns not_found for a missing order, and for an order of another tenant', async () => {
    expect(await lookup('A-404', customer('acme', 'alice'))).toEqual({ status: 'not_found', orderId: 'A-404' });
    expect(await lookup('G-300', customer('acme', 'alice'))).toEqual({ status: 'not_found', orderId: 'G-300' });
  });

  it("returns blocked for another customer's order of the same tenant, and without a signed-in user", async () => {
    expect(await lookup('A-200', customer('acme', 'alice'))).toEqual({ status: 'blocked', reason: 'access_denied' });
    expect(await lookup('A-100', customer('acme', undefined))).toEqual({ status: 'blocked', reason: 'access_denied' });
    expect(await lookup('A-100', customer(undefined, 'alice'))).toEqual({ status: 'blocked', reason: 'access_denied' });
  });

  it('scopes by tenant: the same user id in another tenant is someone else', async () => {
    const db = OrderDatabase.with([...seedOrders(), { ...seedOrders()[0], id: 'G-301', tenantId: 'globex', userId: 'alice' }]);
    const app = createSupportApp({ db });
    expect(await lookup('G-301', customer('acme', 'alice'), app)).toEqual({ status: 'not_found', orderId: 'G-301' });
    expect(await lookup('G-301', customer('globex', 'alice'), app)).toMatchObject({ status: 'found' });
  });

  it('publishes the three states as its output schema', () => {
    const { outputSchema } = createSupportApp().registry.get('lookup_order').definition();
    expect(outputSchema?.oneOf?.map((s) => s.properties?.status?.const)).toEqual(['found', 'not_found', 'blocked']);
    expect(outputSchema?.oneOf?.[0].properties?.fulfillmentStatus).toEqual({
      type: 'string',
      enum: ['processing', 'shipped', 'delivered'],
    });
  });

  it('rejects an empty orderId', async () => {
    const error = await createSupportApp()
      .registry.call('lookup_order', { orderId: '' }, customer('acme', 'alice'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolInputError);
    expect((error as ToolInputError).errors).toMatchObject([{ path: 'orderId', constraint: 'minLength' }]);
  });

  it('refuses a result outside the contract (INVALID_OUTPUT) instead of passing it to the model', async () => {
    const db = OrderDatabase.with([{ ...seedOrders()[0], fulfillmentStatus: 'lost' as FulfillmentStatus }]);
    const error = await createSupportApp({ db })
      .registry.call('lookup_order', { orderId: 'A-100' }, customer('acme', 'alice'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolOutputError);
    expect((error as ToolOutputError).errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'fulfillmentStatus', constraint: 'isIn' })]),
    );
  });

  it('throws a database outage to the runner boundary as TOOL_FAILED', async () => {
    class DownAccess extends OrderAccessService {
      override find(): never {
        throw new Error('ECONNRESET orders-replica');
      }
    }
    const { registry } = createSupportApp({ configure: (c) => c.set(OrderAccessService, new DownAccess(new OrderDatabase())) });
    const error = await registry.call('lookup_order', { orderId: 'A-100' }, customer('acme', 'alice')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolExecutionError);
    expect(JSON.parse((error as ToolExecutionError).toToolResult())).toEqual({
      status: 'error',
      code: 'TOOL_FAILED',
      message: 'Tool "lookup_order" failed unexpectedly.',
    });
  });
});
