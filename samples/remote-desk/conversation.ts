import type { RunResult } from 'toolwright';
import type { RemoteDesk } from './desk';

/** Who is talking: an account manager of the team. */
export const MANAGER = { userId: 'maria', tenantId: 'team-1' };

/**
 * Runs the conversation on one session, one agent run per line. A run that pauses for an approval
 * (a destructive remote tool) asks `approve`, and resumes with the answer.
 */
export async function runConversation(
  desk: RemoteDesk,
  sessionId: string,
  lines: readonly string[],
  approve: (name: string, args: unknown) => boolean | Promise<boolean>,
  print: (line: string) => void = () => undefined,
): Promise<RunResult[]> {
  const who = { sessionId, ...MANAGER };
  const results: RunResult[] = [];
  for (const line of lines) {
    print(`maria › ${line}`);
    let result = await desk.agent.run(line, who);
    while (result.status === 'paused' && result.approvals.length > 0) {
      const [pending] = result.approvals;
      const yes = await approve(pending.name, pending.args);
      print(`        [${yes ? 'approved' : 'denied'}: ${pending.name}]`);
      result = yes ? await desk.agent.approve(who, pending.toolCallId) : await desk.agent.reject(who, pending.toolCallId, 'not now');
    }
    print(`desk  › ${String(result.output ?? `(${result.status})`)}`);
    results.push(result);
  }
  return results;
}
