/**
 * The install matrix's tools, as an app writes them (decorators, class-validator, an injected
 * service). Compiled inside each matrix app against the packed toolwright and that app's own
 * class-validator, then imported by drive.mjs.
 */
import 'reflect-metadata';
import { IsInt, IsString, Min, MinLength } from 'class-validator';
import { Container, Service } from 'typedi';
import { AgentContext, AgentMemory, Param, Tool, ToolRegistry, type ToolInterface } from 'toolwright';

export class LookupInput {
  @Param({ description: 'Order id' })
  @IsString()
  @MinLength(1)
  order_id!: string;
}

export class RefundInput {
  @Param({ description: 'Order id' })
  @IsString()
  @MinLength(1)
  order_id!: string;

  @Param({ description: 'Amount in cents' })
  @IsInt()
  @Min(1)
  amount_cents!: number;
}

@Service()
export class Ledger {
  readonly refunds: string[] = [];
}

@Tool({ name: 'lookup_order', description: 'Look up an order by id', input: LookupInput })
export class LookupOrderTool implements ToolInterface<LookupInput> {
  execute({ order_id }: LookupInput, context: AgentContext) {
    return { order_id, status: 'shipped', session: context.sessionId };
  }
}

/** Every refund waits for a human: the host's own approval flow decides. */
@Tool({ name: 'process_refund', description: 'Refund an order', input: RefundInput, approval: true })
export class RefundTool implements ToolInterface<RefundInput> {
  constructor(private readonly ledger: Ledger) {}

  execute({ order_id, amount_cents }: RefundInput) {
    this.ledger.refunds.push(`${order_id}:${amount_cents}`);
    return { status: 'refunded', order_id, amount_cents };
  }
}

export function build(): { registry: ToolRegistry; ledger: Ledger } {
  const registry = ToolRegistry.build({ tools: [LookupOrderTool, RefundTool] });
  // One ledger per app (typedi's singleton), emptied for each scenario.
  const ledger = Container.get(Ledger);
  ledger.refunds.length = 0;
  return { registry, ledger };
}

export function session(sessionId: string): { context: AgentContext; memory: AgentMemory } {
  return { context: new AgentContext({ sessionId, userId: 'u-1' }), memory: new AgentMemory({ agentName: 'matrix', userId: 'u-1' }) };
}
