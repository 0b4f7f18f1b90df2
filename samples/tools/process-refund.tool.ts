import { IsNumber, IsOptional, IsString, Min, MinLength } from 'class-validator';
import { AgentContext, Param, Tool, ToolInterface } from 'toolwright';
import { LAST_ORDER_ID } from './order-lookup.tool';
import { OrderDatabase } from './orders.db';
import { RefundRejected, RefundService } from './refund.service';

export class RefundInput {
  // Optional, and the schema says so: the model may leave it out right after looking an order up.
  @Param({ description: 'The order ID to refund. Omit it to refund the order last looked up in this conversation.' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  order_id?: string;

  @Param({ description: 'Refund amount (optional for partial refunds)' })
  @IsOptional()
  @IsNumber()
  @Min(0)
  amount?: number;

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
    private readonly orders: OrderDatabase,
    private readonly refunds: RefundService,
  ) {}

  execute(args: RefundInput, context: AgentContext) {
    const userId = context.getState<string>('user_id');
    if (!userId) return { status: 'error', message: 'User authentication required' };

    const orderId = args.order_id ?? context.getState<string>(LAST_ORDER_ID);
    if (!orderId) return { status: 'error', message: 'Which order? Pass order_id (no order has been looked up yet).' };

    const order = this.orders.find(orderId);
    // Someone else's order gets the same answer as a missing one: ids cannot be probed.
    if (!order || order.userId !== userId) return { status: 'error', message: 'Order not found' };

    try {
      const { refund, replayed } = this.refunds.process({
        order,
        amount: args.amount,
        reason: args.reason,
        requestedBy: userId,
        idempotencyKey: context.idempotencyKey,
      });
      return {
        status: 'success',
        refund_id: refund.id,
        order_id: order.id,
        amount: refund.amount,
        refund_status: refund.status,
        message: replayed ? 'This refund was already processed' : 'Refund processed successfully',
      };
    } catch (error) {
      // Policy refusals go back to the model; anything else (an outage) goes to the runner's error boundary.
      if (error instanceof RefundRejected) return { status: 'error', message: error.message };
      throw error;
    }
  }
}
