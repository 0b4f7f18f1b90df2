import type { Agent, AgentEvent, RunResult, ToolCallRecord } from 'toolwright';
import { CUSTOMER } from './shop';
import { TicketSummary } from './ticket';

/** One message and the run that answered it: text (`createSupportDesk`) or a TicketSummary (`createTicketDesk`). */
export interface Exchange<O = string> {
  user: string;
  result: RunResult<O>;
}

/** Runs each message as one agent run on the same session (each run loads and saves it). */
export async function runConversation<O>(
  agent: Agent<O>,
  sessionId: string,
  messages: readonly string[],
  onExchange: (exchange: Exchange<O>) => void = () => undefined,
): Promise<Exchange<O>[]> {
  const exchanges: Exchange<O>[] = [];
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
 * finishes (what `npm run demo` prints), and returns what `runConversation` returns. A desk that
 * answers with a TicketSummary is shown its `reply` as it arrives (the `output-partial` events),
 * then the ticket's fields once validated.
 */
export async function streamConversation<O>(
  agent: Agent<O>,
  sessionId: string,
  messages: readonly string[],
  write: (text: string) => void,
): Promise<Exchange<O>[]> {
  const exchanges: Exchange<O>[] = [];
  for (const user of messages) {
    write(`${CUSTOMER.userId} › ${user}\n`);
    let result: RunResult<O> | undefined;
    const line = { speaking: false, shown: 0, structured: false };
    for await (const event of agent.stream(user, { sessionId, ...CUSTOMER })) result = printEvent(event, write, line) ?? result;
    if (line.speaking) write('\n');
    const ticket = result && summaryOf(result.output);
    if (ticket) write(`${formatTicket(ticket)}\n`);
    exchanges.push({ user, result: result! });
    write('\n');
  }
  return exchanges;
}

/** What is on the desk's line so far: text being written, and how much of a streamed reply was shown. */
interface Line {
  speaking: boolean;
  shown: number;
  structured: boolean;
}

function printEvent<O>(event: AgentEvent<O>, write: (text: string) => void, line: Line): RunResult<O> | undefined {
  const endLine = () => {
    if (line.speaking) write('\n');
    line.speaking = false;
    line.shown = 0;
  };
  switch (event.type) {
    case 'output-partial': {
      // The reply as it arrives; the raw JSON of a structured answer is not shown.
      line.structured = true;
      const reply = typeof event.partial.reply === 'string' ? event.partial.reply : '';
      if (reply.length > line.shown) write(`${line.speaking ? '' : 'desk  › '}${reply.slice(line.shown)}`);
      line.speaking ||= reply.length > 0;
      line.shown = Math.max(line.shown, reply.length);
      return undefined;
    }
    case 'text-delta':
      if (line.structured || event.delta.trimStart().startsWith('{')) {
        line.structured = true;
        return undefined;
      }
      write(line.speaking ? event.delta : `desk  › ${event.delta}`);
      line.speaking = true;
      return undefined;
    case 'tool-call':
    case 'turn-end':
      endLine();
      line.structured = false;
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
export function formatExchange<O>({ user, result }: Exchange<O>): string {
  const lines = [`${CUSTOMER.userId} › ${user}`];
  for (const call of result.toolCalls) lines.push(...formatCall(call));
  const ticket = summaryOf(result.output);
  if (result.status === 'paused') lines.push(`desk  › (waiting for approval of ${result.approvals.map((a) => a.name).join(', ')})`);
  else if (ticket) lines.push(`desk  › ${ticket.reply}`, formatTicket(ticket));
  else lines.push(`desk  › ${String(result.output)}`);
  return lines.join('\n');
}

/** The run's TicketSummary, when the desk answers with one. */
function summaryOf(output: unknown): TicketSummary | undefined {
  return output instanceof TicketSummary ? output : undefined;
}

/** The ticket's fields, as a help desk would file them. */
function formatTicket(ticket: TicketSummary): string {
  const fields = [`topic=${ticket.topic}`];
  if (ticket.order_id) fields.push(`order=${ticket.order_id}`);
  if (ticket.refund_cents) fields.push(`refund=${(ticket.refund_cents / 100).toFixed(2)}`);
  return `      🎫 ${fields.join(' ')}`;
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
