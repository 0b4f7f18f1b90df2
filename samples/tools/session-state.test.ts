import { AgentContext } from 'toolwright';
import { createSupportApp } from './app';
import { LAST_ORDER_ID } from './order-lookup.tool';

/**
 * Session state across calls: order_lookup remembers `last_order_id`, and process_refund
 * (whose schema says order_id may be omitted) refunds that order when the model leaves it out.
 */
describe('the order a conversation is about', () => {
  const signedIn = () => new AgentContext({ sessionId: 's-1', userId: 'alice', tenantId: 'acme', state: { user_id: 'alice' } });

  it('is remembered by order_lookup and used by process_refund when order_id is omitted', async () => {
    const { registry } = createSupportApp();
    const context = signedIn();
    await registry.call('order_lookup', { order_id: 'A-101' }, context);
    const result = JSON.parse(await registry.call('process_refund', { reason: 'changed my mind', amount_cents: 500 }, context));
    expect(result).toMatchObject({ status: 'success', order_id: 'A-101', amount_cents: 500 });
  });

  it('is saved with the session: a later turn (a new context from the stored state) still knows it', async () => {
    const { registry } = createSupportApp();
    const firstTurn = signedIn();
    await registry.call('order_lookup', { order_id: 'A-100' }, firstTurn);
    expect(firstTurn.takeChanges().set).toEqual({ [LAST_ORDER_ID]: 'A-100' });

    const nextTurn = new AgentContext({ sessionId: 's-1', userId: 'alice', tenantId: 'acme', state: firstTurn.getAllState() });
    const result = JSON.parse(await registry.call('process_refund', { reason: 'late' }, nextTurn));
    expect(result).toMatchObject({ status: 'success', order_id: 'A-100' });
  });

  it('is overridden by an explicit order_id', async () => {
    const { registry } = createSupportApp();
    const context = signedIn();
    await registry.call('order_lookup', { order_id: 'A-101' }, context);
    const result = JSON.parse(await registry.call('process_refund', { order_id: 'A-100', reason: 'x' }, context));
    expect(result).toMatchObject({ status: 'success', order_id: 'A-100' });
  });

  it('without any lookup, process_refund asks for the order instead of guessing', async () => {
    const { registry } = createSupportApp();
    const result = JSON.parse(await registry.call('process_refund', { reason: 'x' }, signedIn()));
    expect(result).toEqual({ status: 'error', message: 'Which order? Pass order_id (no order has been looked up yet).' });
  });
});
