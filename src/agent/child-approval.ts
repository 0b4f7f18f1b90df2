import { createHash } from 'node:crypto';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { Param } from '../decorators/param.decorator';
import { InputUnavailableError } from '../errors/input-errors';
import type { AgentContext } from '../session/agent-context';
import type { ApprovalDecision, PendingApproval } from './types';

/** The form a person answers for a call in a child run (as the MCP server's approval form, without edited arguments). */
export class ChildApprovalForm {
  @Param({ title: 'Decision', enum: ['approve', 'reject'] })
  @IsIn(['approve', 'reject'])
  decision!: 'approve' | 'reject';

  @Param({ title: 'Reason', description: 'Why the call is rejected (shown to the model).' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;
}

/**
 * The child run's waiting calls, asked one by one of the person behind the calling surface
 * (`context.elicit`: MCP elicitation, or a 2026-07-28 round by each question's key); undefined when
 * no one can be asked there (a direct call, the CLI, an MCP client without elicitation, an agent run,
 * which pauses on the child's calls instead).
 */
export async function askChildApprovals(
  context: AgentContext,
  agent: string,
  approvals: readonly PendingApproval[],
): Promise<Record<string, ApprovalDecision> | undefined> {
  const decisions: Record<string, ApprovalDecision> = {};
  const keys = new Set<string>();
  for (const approval of approvals) {
    const key = approvalKey(approval, keys);
    const shown = JSON.stringify(approval.args, null, 2);
    const message = `Agent "${agent}" wants to call tool "${approval.name}", which needs your approval, with these arguments:\n${shown}`;
    let answer;
    try {
      answer = await context.elicit(message, ChildApprovalForm, { key });
    } catch (error) {
      if (error instanceof InputUnavailableError) return undefined;
      throw error;
    }
    decisions[approval.toolCallId] = decided(answer);
  }
  return decisions;
}

function decided(answer: Awaited<ReturnType<AgentContext['elicit']>>): ApprovalDecision {
  if (answer.action !== 'accept') return { approve: false, reason: `the user chose ${answer.action}` };
  const form = answer.content as ChildApprovalForm;
  if (form.decision === 'approve') return { approve: true };
  return { approve: false, reason: form.reason?.trim() || 'the user chose reject' };
}

/**
 * A question key per child call (a plain name, see input-key.ts), from what the call does, not its id:
 * a surface that asks in rounds (MCP 2026-07-28) runs the call again, the child with it, and the
 * child's model names its calls anew; the same call must be the same question. Repeats are numbered.
 */
function approvalKey(approval: PendingApproval, taken: Set<string>): string {
  // The path's steps without their call ids (`tool#id`): a round under a new request id is the same question.
  const steps = (approval.path?.slice(0, -1) ?? []).map((step) => step.split('#')[0]);
  const what = JSON.stringify([steps, approval.name, approval.args]);
  const base = `approve.${createHash('sha256').update(what).digest('hex').slice(0, 32)}`;
  let key = base;
  for (let n = 2; taken.has(key); n++) key = `${base}.${n}`;
  taken.add(key);
  return key;
}
