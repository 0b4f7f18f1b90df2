import { Tool } from 'toolwright';
import { RefundInput, RefundProcessorTool } from '../tools';

/** Refunds above this many cents wait for the customer to confirm them in the chat. */
export const CONFIRM_ABOVE_CENTS = 5_000;

/**
 * The sample refund tool with an approval policy: a refund over 50.00 (or of "what is left",
 * whatever that is) pauses the run, the chat shows the call with Approve / Deny, and the run goes
 * on with the decision (`addToolApprovalResponse` in `useChat`). The policy sees the validated
 * arguments, and it holds on every surface (runner, MCP, adapters, direct registry calls).
 */
@Tool({
  name: 'process_refund',
  description: 'Process a refund for an order. Refunds over 50.00 need the customer to confirm them.',
  input: RefundInput,
  tags: ['orders', 'refunds'],
  annotations: { destructiveHint: true, idempotentHint: true },
  approval: (args: RefundInput) => (args.amount_cents ?? Infinity) > CONFIRM_ABOVE_CENTS,
})
export class ConfirmedRefundTool extends RefundProcessorTool {}
