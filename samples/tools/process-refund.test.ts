import { AgentContext, ToolExecutionError, ToolInputError } from 'toolwright';
import { createSupportApp } from './app';
import { RefundService, type RefundRequest, type RefundOutcome } from './refund.service';

const signedIn = (userId: string) => new AgentContext({ sessionId: 's-1', userId, tenantId: 'acme', state: { user_id: userId } });

function refundApp() {
  const refunds = new RefundService();
  const { registry } = createSupportApp({ refunds });
  const refund = async (args: string | object, context = signedIn('alice'), toolCallId?: string) =>
    JSON.parse(await registry.call('process_refund', args, context, undefined, { toolCallId }));
  return { registry, refunds, refund };
}

async function inputErrors(args: object) {
  const { registry } = refundApp();
  const error = await registry.call('process_refund', args, signedIn('alice')).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ToolInputError);
  expect((error as ToolInputError).code).toBe('INVALID_ARGUMENTS');
  return (error as ToolInputError).errors;
}

describe('process_refund', () => {
  it("tells the model the PHP kit's parameters, with the fallback for order_id spelled out", () => {
    const { registry } = refundApp();
    expect(registry.get('process_refund').definition().parameters).toEqual({
      type: 'object',
      properties: {
        order_id: {
          type: 'string',
          minLength: 1,
          description: 'The order ID to refund. Omit it to refund the order last looked up in this conversation.',
        },
        amount_cents: {
          type: 'integer',
          minimum: 1,
          description: 'Refund amount in cents (integer minor units, e.g. 2000 for 20.00); omit it to refund what is left',
        },
        reason: { type: 'string', minLength: 1, description: 'Reason for refund' },
      },
      required: ['reason'],
      additionalProperties: false,
    });
  });

  it('refunds the whole order when no amount is given', async () => {
    const { refund, refunds } = refundApp();
    expect(await refund('{"order_id":"A-100","reason":"arrived broken"}')).toEqual({
      status: 'success',
      refund_id: 'RF-1',
      order_id: 'A-100',
      amount_cents: 5990,
      currency: 'USD',
      refund_status: 'approved',
      message: 'Refund processed successfully',
    });
    expect(refunds.refundsFor('A-100')).toMatchObject([{ amountCents: 5990, reason: 'arrived broken', requestedBy: 'alice' }]);
  });

  it('refunds partially, then refuses more than what is left', async () => {
    const { refund } = refundApp();
    expect(await refund({ order_id: 'A-101', amount_cents: 10000, reason: 'late' })).toMatchObject({
      status: 'success',
      amount_cents: 10000,
    });
    expect(await refund({ order_id: 'A-101', amount_cents: 3000, reason: 'late' })).toEqual({
      status: 'error',
      message: 'Refund amount 3000 cents exceeds the refundable balance of 2000 cents (USD)',
    });
    expect(await refund({ order_id: 'A-101', reason: 'late' })).toMatchObject({ status: 'success', amount_cents: 2000 });
    expect(await refund({ order_id: 'A-101', reason: 'late' })).toEqual({
      status: 'error',
      message: 'Order A-101 has already been fully refunded',
    });
  });

  it('requires a signed-in user', async () => {
    const { refund, refunds } = refundApp();
    const anonymous = new AgentContext({ sessionId: 's-2' });
    expect(await refund({ order_id: 'A-100', reason: 'x' }, anonymous)).toEqual({
      status: 'error',
      message: 'User authentication required',
    });
    expect(refunds.refundsFor('A-100')).toEqual([]);
  });

  it("answers another customer's order like a missing one and refunds nothing", async () => {
    const { refund, refunds } = refundApp();
    expect(await refund({ order_id: 'A-200', reason: 'x' }, signedIn('alice'))).toEqual({ status: 'error', message: 'Order not found' });
    expect(await refund({ order_id: 'A-999', reason: 'x' }, signedIn('alice'))).toEqual({ status: 'error', message: 'Order not found' });
    expect(refunds.refundsFor('A-200')).toEqual([]);
    // The owner can.
    expect(await refund({ order_id: 'A-200', reason: 'x' }, signedIn('bob'))).toMatchObject({ status: 'success', amount_cents: 4200 });
  });

  it("never refunds another tenant's order, even to a user of the same name", async () => {
    const { refund, refunds } = refundApp();
    // G-301 belongs to alice of tenant globex; this alice is of tenant acme.
    expect(await refund({ order_id: 'G-301', reason: 'x' }, signedIn('alice'))).toEqual({ status: 'error', message: 'Order not found' });
    expect(refunds.refundsFor('G-301')).toEqual([]);
    const globexAlice = new AgentContext({ sessionId: 's-g', userId: 'alice', tenantId: 'globex', state: { user_id: 'alice' } });
    expect(await refund({ order_id: 'G-301', reason: 'x' }, globexAlice)).toMatchObject({
      status: 'success',
      amount_cents: 25000,
      currency: 'EUR',
    });
    expect(await refund({ order_id: 'A-100', reason: 'x' }, globexAlice)).toEqual({ status: 'error', message: 'Order not found' });
  });

  it('never refunds more than the total, however the amounts add up (integer cents)', async () => {
    const { refund, refunds } = refundApp();
    // 59.90 as 10 + 20 + 29.90: in floats 0.1 + 0.2 style sums drift; in cents they are exact.
    for (const amount_cents of [1000, 2000, 2990]) {
      expect(await refund({ order_id: 'A-100', amount_cents, reason: 'split' })).toMatchObject({ status: 'success', amount_cents });
    }
    expect(await refund({ order_id: 'A-100', amount_cents: 1, reason: 'one more cent' })).toEqual({
      status: 'error',
      message: 'Order A-100 has already been fully refunded',
    });
    expect(refunds.refundsFor('A-100').reduce((sum, r) => sum + r.amountCents, 0)).toBe(5990);
  });

  it('refunds once per tool call: a retried call (same idempotency key) gets the first refund back', async () => {
    const { refund, refunds } = refundApp();
    const context = signedIn('alice');
    const args = { order_id: 'A-101', amount_cents: 1000, reason: 'scratched' };
    const first = await refund(args, context, 'call_1');
    const retry = await refund(args, context, 'call_1');
    expect(retry).toEqual({ ...first, message: 'This refund was already processed' });
    expect(refunds.refundsFor('A-101')).toHaveLength(1);

    // A different model call is a different refund.
    expect(await refund(args, context, 'call_2')).toMatchObject({ status: 'success', refund_id: 'RF-2' });
    expect(refunds.refundsFor('A-101')).toHaveLength(2);
  });

  it('refuses an idempotency key reused with different arguments, and pays nothing for it', async () => {
    const { refund, refunds } = refundApp();
    const context = signedIn('alice');
    expect(await refund({ order_id: 'A-101', amount_cents: 1000, reason: 'scratched' }, context, 'call_1')).toMatchObject({
      status: 'success',
    });
    for (const changed of [
      { order_id: 'A-101', amount_cents: 9000, reason: 'scratched' },
      { order_id: 'A-100', amount_cents: 1000, reason: 'scratched' },
      { order_id: 'A-101', amount_cents: 1000, reason: 'other' },
    ]) {
      expect(await refund(changed, context, 'call_1')).toMatchObject({ status: 'error', code: 'IDEMPOTENCY_CONFLICT' });
    }
    expect(refunds.refundsFor('A-101')).toHaveLength(1);
    expect(refunds.refundsFor('A-100')).toHaveLength(0);
  });

  it('rejects a negative amount, empty strings and wrong types before the tool runs', async () => {
    expect(await inputErrors({ order_id: 'A-100', amount_cents: 0, reason: 'x' })).toEqual([
      { path: 'amount_cents', constraint: 'min', message: 'amount_cents must not be less than 1' },
    ]);
    expect(await inputErrors({ order_id: 'A-100', amount_cents: 19.99, reason: 'x' })).toMatchObject([
      { path: 'amount_cents', constraint: 'isInt' },
    ]);
    expect(await inputErrors({ order_id: '', reason: '' })).toEqual([
      { path: 'order_id', constraint: 'minLength', message: 'order_id must be longer than or equal to 1 characters' },
      { path: 'reason', constraint: 'minLength', message: 'reason must be longer than or equal to 1 characters' },
    ]);
    expect(await inputErrors({ order_id: 'A-100', amount_cents: '10', reason: 'x' })).toMatchObject([
      { path: 'amount_cents', constraint: 'isInt' },
    ]);
    expect(await inputErrors({ order_id: 'A-100' })).toMatchObject([{ path: 'reason', constraint: 'isDefined' }]);
  });

  it('treats null as "not given" (what strict-mode providers send for an optional field)', async () => {
    const { refund } = refundApp();
    expect(await refund({ order_id: 'A-100', amount_cents: null, reason: 'x' })).toMatchObject({ status: 'success', amount_cents: 5990 });
  });

  it('lets an outage reach the runner as TOOL_FAILED, without telling the model the internal message', async () => {
    class DownRefundService extends RefundService {
      override async process(_request: RefundRequest): Promise<RefundOutcome> {
        throw new Error('connection refused: payments-db:5432');
      }
    }
    const { registry } = createSupportApp({ refunds: new DownRefundService() });
    const error = await registry.call('process_refund', { order_id: 'A-100', reason: 'x' }, signedIn('alice')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolExecutionError);
    expect((error as ToolExecutionError).code).toBe('TOOL_FAILED');
    expect((error as ToolExecutionError).toToolResult()).not.toContain('payments-db');
  });
});
