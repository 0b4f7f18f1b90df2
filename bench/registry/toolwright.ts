import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsNumber, IsOptional, IsString, Min, MinLength, ValidateNested } from 'class-validator';
import { AgentContext, AgentMemory, Param, Tool, ToolInputError, ToolInterface, ToolRegistry } from '../../src';
import { runContender } from './harness';
import { executeRefund, STATUSES } from './workload';

class Address {
  @IsString() street!: string;
  @IsString() city!: string;
  @IsString() zip!: string;
}

class RefundInput {
  @Param({ description: 'The order ID to refund' })
  @IsString()
  @MinLength(1)
  order_id!: string;

  @Param({ description: 'Refund amount (optional for partial refunds)' })
  @IsOptional()
  @IsNumber()
  @Min(0)
  amount?: number;

  @Param({ description: 'Reason for refund' })
  @IsString()
  @MinLength(1)
  reason!: string;

  @Param({ description: 'Order status' })
  @IsIn(STATUSES)
  status!: (typeof STATUSES)[number];

  @Param({ description: 'Tags', type: () => [String] })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  tags?: string[];

  @Param({ description: 'Shipping address' })
  @IsOptional()
  @ValidateNested()
  @Type(() => Address)
  address?: Address;
}

@Tool({ name: 'process_refund', description: 'Process a refund for an order', input: RefundInput })
class RefundTool implements ToolInterface<RefundInput> {
  execute(args: RefundInput) {
    return executeRefund(args);
  }
}

export const registry = ToolRegistry.build({ tools: [RefundTool] });
const context = new AgentContext({ sessionId: 'bench', userId: 'u-1', state: { user_id: 'u-1' } });
const memory = new AgentMemory({ agentName: 'bench', userId: 'u-1' });

export async function call(args: string): Promise<string> {
  try {
    return await registry.call('process_refund', args, context, memory);
  } catch (error) {
    if (error instanceof ToolInputError) return error.toToolResult();
    throw error;
  }
}

if (require.main === module) void runContender('toolwright', call);
