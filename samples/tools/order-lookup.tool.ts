import { IsBoolean, IsOptional, IsString } from 'class-validator';
import { AgentContext, Param, Tool, ToolInterface } from 'toolwright';
import { customerScope, OrderAccessService } from './order-access.service';
import { orderSummary } from './orders.db';

/** Session state key: the order this conversation is about (process_refund falls back to it). */
export const LAST_ORDER_ID = 'last_order_id';

export class OrderLookupInput {
  @Param({ description: 'The order ID to look up' })
  @IsString()
  order_id!: string;

  @Param({ description: 'Include order items in response' })
  @IsOptional()
  @IsBoolean()
  include_items?: boolean;
}

/**
 * The PHP kit's order lookup, with what it left out: the caller must be signed in (user and
 * tenant), and someone else's order is answered exactly like a missing one, so ids cannot be probed.
 */
@Tool({
  name: 'order_lookup',
  description: 'Look up order information by ID',
  input: OrderLookupInput,
  tags: ['orders'],
  annotations: { readOnlyHint: true },
})
export class OrderLookupTool implements ToolInterface<OrderLookupInput> {
  constructor(private readonly access: OrderAccessService) {}

  execute({ order_id, include_items }: OrderLookupInput, context: AgentContext) {
    const scope = customerScope(context);
    if (!scope) return { status: 'error', message: 'User authentication required' };

    // Scoped by tenant and owner: another tenant's order (even of a same-named user) does not exist here.
    const order = this.access.findOwn(scope, order_id);
    if (!order) return { status: 'error', message: 'Order not found' };

    context.setState(LAST_ORDER_ID, order.id);
    const summary = orderSummary(order);
    return { status: 'success', order: include_items ? { ...summary, items: order.items } : summary };
  }
}
