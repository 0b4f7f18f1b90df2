/** What `toolwright studio` loads in the startup benchmark: a user's config, importing the built package. */
import 'reflect-metadata';
import { IsInt, IsString, Min } from 'class-validator';
import { Param, Tool, ToolRegistry, type ToolInterface } from 'toolwright';

class RefundInput {
  @Param({ description: 'The order' }) @IsString() order_id!: string;
  @Param({ description: 'Cents' }) @IsInt() @Min(1) amount_cents!: number;
}

@Tool({ name: 'refund', description: 'Refund an order.', input: RefundInput })
class RefundTool implements ToolInterface<RefundInput> {
  execute(args: RefundInput) {
    return { refunded: args.amount_cents };
  }
}

export const registry = ToolRegistry.build({ tools: [RefundTool] });
