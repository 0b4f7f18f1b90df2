import { IsIn, IsInt, IsOptional, IsString, Min, MinLength } from 'class-validator';
import { Agent, Param, ToolRegistry, type ContainerLike, type Model, type SessionStore } from 'toolwright';
import { RefundProcessorTool } from '../tools';

/** What the desk gives billing: the desk's model fills it in, the registry checks it (a wrong amount goes back to the desk's model). */
export class BillingRequest {
  @Param({ description: 'The order to refund' })
  @IsString()
  @MinLength(1)
  order_id!: string;

  @Param({ description: 'Refund amount in cents (integer minor units, e.g. 2000 for 20.00); omit it to refund what is left' })
  @IsOptional()
  @IsInt()
  @Min(1)
  amount_cents?: number;

  @Param({ description: 'Why the customer wants the refund' })
  @IsString()
  @MinLength(1)
  reason!: string;
}

/** Billing's structured answer, which the desk's model reads as the `billing` tool's result. */
export class RefundReceipt {
  @Param({ description: 'refunded, or refused (then `message` says why)' })
  @IsIn(['refunded', 'refused'])
  status!: 'refunded' | 'refused';

  @Param({ description: 'The order' }) @IsString() order_id!: string;
  @Param({ description: 'The refund id, when refunded' }) @IsOptional() @IsString() refund_id?: string;
  @Param({ description: 'The amount refunded, in cents' }) @IsOptional() @IsInt() amount_cents?: number;
  @Param({ description: 'ISO currency of the amount' }) @IsOptional() @IsString() currency?: string;
  @Param({ description: 'What happened, in words' }) @IsString() message!: string;
}

export const BILLING_NAME = 'billing';

const BILLING_INSTRUCTIONS = [
  'You are the billing desk of an online shop. You get one refund request as JSON (order_id, amount_cents, reason).',
  'Refund it with process_refund, passing order_id, amount_cents and reason as given; never refund more than asked.',
  'Then answer with a receipt: status refunded (with refund_id, amount_cents, currency) or refused (message says why).',
].join('\n');

/**
 * The billing sub-agent: its own model, instructions and one tool (process_refund). The desk calls
 * it through `billing.asTool(...)`; it runs as the desk's customer (the refund tool checks she
 * owns the order), in a session of its own under the desk's, and answers with a RefundReceipt.
 */
export function createBillingAgent(options: { model: Model; store: SessionStore; container: ContainerLike }): Agent<RefundReceipt> {
  return new Agent({
    name: BILLING_NAME,
    instructions: BILLING_INSTRUCTIONS,
    model: options.model,
    tools: ToolRegistry.build({ tools: [RefundProcessorTool], container: options.container }),
    store: options.store,
    maxTurns: 4,
    toolTimeoutMs: 5_000,
    errorPolicy: 'redact',
    output: RefundReceipt,
  });
}
