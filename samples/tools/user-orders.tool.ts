import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { AgentContext, Param, Tool, ToolInterface } from 'toolwright';
import { customerScope, OrderAccessService } from './order-access.service';
import { orderSummary } from './orders.db';

const DEFAULT_LIMIT = 10;

export class UserOrdersInput {
  @Param({ description: 'How many of the most recent orders to return', default: DEFAULT_LIMIT })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(50)
  limit: number = DEFAULT_LIMIT; // absent (or null) keeps this initializer
}

/** The PHP kit's "tool with user context": the signed-in user's latest orders, nobody else's. */
@Tool({
  name: 'user_orders',
  description: "List the signed-in customer's most recent orders",
  input: UserOrdersInput,
  tags: ['orders'],
  annotations: { readOnlyHint: true },
})
export class UserOrdersTool implements ToolInterface<UserOrdersInput> {
  constructor(private readonly access: OrderAccessService) {}

  execute({ limit }: UserOrdersInput, context: AgentContext) {
    const scope = customerScope(context);
    if (!scope) return { status: 'error', message: 'User authentication required' };

    return { status: 'success', orders: this.access.listOwn(scope, limit).map(orderSummary) };
  }
}
