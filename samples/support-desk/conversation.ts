import type { Agent, AgentEvent, RunResult, ToolCallRecord } from 'toolwright';
import { CUSTOMER } from './shop';

export interface Exchange {
  user: string;
  result: RunResult;
}

/** Runs each message as one agent run on the same session (each run loads and saves it). */
export async function runConversation(
  agent: Agent,
  sessionId: string,
  messages: readonly string[],
  onExchange: (exchange: Exchange) => void = () => undefined,
): Promise<Exchange[]> {
  const exchanges: Exchange[] = [];
  for (const user of messages) {
    const result = await agent.run(user, { sessionId, ...CUSTOMER });
    const exchange = { user, result };
    exchanges.push(exchange);
    onExchange(exchange);
  }
  return exchanges;
}

/**
 * The same conversation, streamed: writes the desk's text as it arrives and each tool call as it
 * finishes (what `npm run demo` prints), and returns what `runConversation` returns.
 */
export async function streamConversation(
  agent: Agent,
  sessionId: string,
  messages: readonly string[],
  write: (text: string) => void,
): Promise<Exchange[]> {
  const exchanges: Exchange[] = [];
  for (const user of messages) {
    write(`${CUSTOMER.userId} › ${user}\n`);
    let result: RunResult | undefined;
    let speaking = false;
    const endLine = () => {
      if (speaking) write('\n');
      speaking = false;
    };
    for await (const event of agent.stream(user, { sessionId, ...CUSTOMER })) {
      result = printEvent(event, write, speaking, endLine) ?? result;
      if (event.type === 'text-delta') speaking = true;
    }
    exchanges.push({ user, result: result! });
    write('\n');
  }
  return exchanges;
}

function printEvent(event: AgentEvent, write: (text: string) => void, speaking: boolean, endLine: () => void): RunResult | undefined {
  switch (event.type) {
    case 'text-delta':
      write(speaking ? event.delta : `desk  › ${event.delta}`);
      return undefined;
    case 'tool-call':
    case 'turn-end':
      endLine();
      return undefined;
    case 'tool-result':
      write(`${formatCall(event.record).join('\n')}\n`);
      return undefined;
    case 'approval-required':
      write(`desk  › (waiting for approval of ${event.approval.name})\n`);
      return undefined;
    case 'run-end':
      return event.result;
    default:
      return undefined;
  }
}

/** A readable transcript: each message, each tool call with its arguments and result, each answer. */
export function formatExchange({ user, result }: Exchange): string {
  const lines = [`${CUSTOMER.userId} › ${user}`];
  for (const call of result.toolCalls) lines.push(...formatCall(call));
  lines.push(
    result.status === 'paused'
      ? `desk  › (waiting for approval of ${result.approvals.map((a) => a.name).join(', ')})`
      : `desk  › ${result.output}`,
  );
  return lines.join('\n');
}

function formatCall(call: ToolCallRecord): string[] {
  const head = `    ⚙ ${call.name}(${call.arguments})  ${call.durationMs.toFixed(1)} ms`;
  if (call.status === 'ok') return [head, `      ✓ ${shorten(call.result)}`];
  const body = JSON.parse(call.result) as { code?: string; message?: string; errors?: Array<{ path: string; message: string }> };
  const detail = body.errors?.map((e) => e.message).join('; ') ?? body.message ?? '';
  return [head, `      ✗ ${call.code ?? call.status.toUpperCase()}: ${detail} (sent back to the model)`];
}

function shorten(text: string, max = 160): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
