import { Equals, IsIn, IsString, MinLength } from 'class-validator';
import { AgentContext, Param, Tool, ToolInterface } from 'toolwright';
import { OrderAccessService } from './order-access.service';
import { FULFILLMENT_STATUSES, type FulfillmentStatus } from './orders.db';

export class LookupOrderInput {
  @Param({ description: 'The order ID, e.g. "A-100"' })
  @IsString()
  @MinLength(1)
  orderId!: string;
}

// The expected outcomes, each a typed state the model can act on. Every class pins `status`,
// so the registry checks each result against exactly one of them.

export class OrderFound {
  @Equals('found') status!: 'found';
  @IsString() orderId!: string;
  @IsIn(FULFILLMENT_STATUSES) fulfillmentStatus!: FulfillmentStatus;
}

export class OrderNotFound {
  @Equals('not_found') status!: 'not_found';
  @IsString() orderId!: string;
}

export class OrderBlocked {
  @Equals('blocked') status!: 'blocked';
  @Equals('access_denied') reason!: 'access_denied';
}

export type LookupOrderResult = OrderFound | OrderNotFound | OrderBlocked;

/**
 * The TypeScript harness's typed lookup: expected outcomes are returned as states; a broken
 * database throws, and the registry reports it as TOOL_FAILED for the runner to handle.
 */
@Tool({
  name: 'lookup_order',
  description: 'Look up one order owned by the current customer.',
  input: LookupOrderInput,
  output: [OrderFound, OrderNotFound, OrderBlocked],
  tags: ['orders'],
  annotations: { readOnlyHint: true },
})
export class LookupOrderTool implements ToolInterface<LookupOrderInput> {
  constructor(private readonly access: OrderAccessService) {}

  async execute({ orderId }: LookupOrderInput, context: AgentContext): Promise<LookupOrderResult> {
    const { tenantId, userId } = context;
    if (!tenantId || !userId) return { status: 'blocked', reason: 'access_denied' };

    const scope = { tenantId, userId };
    const order = this.access.find(scope, orderId);
    if (!order) return { status: 'not_found', orderId };
    if (!this.access.canRead(scope, order)) return { status: 'blocked', reason: 'access_denied' };

    return { status: 'found', orderId, fulfillmentStatus: order.fulfillmentStatus };
  }
}
