import { IsInt, IsOptional, IsString, Min, MinLength } from 'class-validator';
import { AgentContext, IdempotencyConflictError, IdempotencyInProgressError, Param, Tool, ToolInterface } from 'toolwright';
import { customerScope, OrderAccessService } from './order-access.service';
import { LAST_ORDER_ID } from './order-lookup.tool';
import { RefundRejected, RefundService } from './refund.service';

export class RefundInput {
  // Optional, and the schema says so: the model may leave it out right after looking an order up.
  @Param({ description: 'The order ID to refund. Omit it to refund the order last looked up in this conversation.' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  order_id?: string;

  // Money in integer minor units: no float can make two refunds add up to more than the total.
  @Param({ description: 'Refund amount in cents (integer minor units, e.g. 2000 for 20.00); omit it to refund what is left' })
  @IsOptional()
  @IsInt()
  @Min(1)
  amount_cents?: number;

  @Param({ description: 'Reason for refund' })
  @IsString()
  @MinLength(1)
  reason!: string;
}

/**
 * The PHP kit's refund tool. Validation happened before `execute` runs (the schema above is
 * what the model is told and what is enforced); the tool does what only it can: who is asking,
 * whose order it is, and which call this is (the idempotency key).
 */
@Tool({
  name: 'process_refund',
  description: 'Process a refund for an order',
  input: RefundInput,
  tags: ['orders', 'refunds'],
  annotations: { destructiveHint: true, idempotentHint: true },
})
export class RefundProcessorTool implements ToolInterface<RefundInput> {
  constructor(
    private readonly access: OrderAccessService,
    private readonly refunds: RefundService,
  ) {}

  async execute(args: RefundInput, context: AgentContext) {
    const scope = customerScope(context);
    if (!scope) return { status: 'error', message: 'User authentication required' };

    const orderId = args.order_id ?? context.getState<string>(LAST_ORDER_ID);
    if (!orderId) return { status: 'error', message: 'Which order? Pass order_id (no order has been looked up yet).' };

    // Scoped by tenant and owner; someone else's order gets the same answer as a missing one.
    const order = this.access.findOwn(scope, orderId);
    if (!order) return { status: 'error', message: 'Order not found' };

    try {
      const { refund, replayed } = await this.refunds.process({
        order,
        amountCents: args.amount_cents,
        reason: args.reason,
        requestedBy: scope.userId,
        idempotencyKey: context.idempotencyKey,
      });
      return {
        status: 'success',
        refund_id: refund.id,
        order_id: order.id,
        amount_cents: refund.amountCents,
        currency: refund.currency,
        refund_status: refund.status,
        message: replayed ? 'This refund was already processed' : 'Refund processed successfully',
      };
    } catch (error) {
      // Policy refusals go back to the model; anything else (an outage) goes to the runner's error boundary.
      if (error instanceof RefundRejected) return { status: 'error', message: error.message };
      // The key reused with other arguments, or the same refund still running elsewhere: the model is told, nothing was paid.
      if (error instanceof IdempotencyConflictError || error instanceof IdempotencyInProgressError)
        return { status: 'error', code: error.code, message: error.message };
      throw error;
    }
  }
}
