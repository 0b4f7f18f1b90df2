import { ScriptedModel, type Message, type ScriptedStep } from 'toolwright';
import type { ModelRequest } from 'toolwright/models';

/** What alice says, one run of the agent per line. */
export const CONVERSATION: readonly string[] = [
  'Hi, it is Alice.',
  'Where is my order A-100?',
  'The mug in it arrived broken. Please refund 20 dollars for that order.',
  'And what about order A-200?',
  'By the way, please always send me updates by email.',
];

type ToolMessage = Extract<Message, { role: 'tool' }>;
/** A step of the script: text, or tool calls. */
type Step = Exclude<ScriptedStep, { error: Error }>;

/**
 * The embedded model of the demo: a ScriptedModel whose every step reads the request, the way a
 * real model would — it answers the user's message, reads tool results, and corrects its own
 * call after an INVALID_ARGUMENTS error.
 */
export function supportDeskModel(options: { chunkDelayMs?: number } = {}): ScriptedModel {
  return new ScriptedModel((request) => nextStep(request), { name: 'scripted-support-desk', ...options });
}

function nextStep(request: ModelRequest): ScriptedStep {
  const step = reply(request);
  // Asked for a ticket summary (the desk's `output`), the answer goes through final_answer, as a model without a native format does.
  const ticketed = request.tools.some((t) => t.name === 'final_answer');
  return ticketed && !step.toolCalls?.length
    ? { toolCalls: [{ name: 'final_answer', arguments: ticket(step.text ?? '', request) }] }
    : step;
}

function reply(request: ModelRequest): Step {
  const last = request.messages[request.messages.length - 1];
  if (last?.role === 'user') return answerUser(last.content, request);
  if (last?.role === 'tool') return readToolResult(last, request);
  return { text: 'Sorry, I lost the thread. Could you say that again?' };
}

/** The ticket summary of an answer: its topic, order and refund read from this message's tool results. */
function ticket(text: string, request: ModelRequest): Record<string, unknown> {
  const start = request.messages.map((m) => m.role).lastIndexOf('user');
  const results = request.messages.slice(start + 1).filter((m): m is ToolMessage => m.role === 'tool');
  const last = results.at(-1);
  const body = last ? JSON.parse(last.content) : {};
  const topics: Record<string, string> = {
    order_lookup: 'order_status',
    lookup_order: body.status === 'blocked' ? 'access_denied' : 'order_status',
    billing: 'refund',
    remember_preference: 'preference',
  };
  const topic = last ? (topics[last.name] ?? 'other') : /^(hello|welcome)/i.test(text) ? 'greeting' : 'other';
  const orderId = body.order_id ?? body.order?.id ?? (body.status === 'blocked' ? undefined : body.orderId);
  return {
    reply: text,
    topic,
    ...(orderId ? { order_id: orderId } : {}),
    ...(last?.name === 'billing' && body.status === 'refunded' ? { refund_cents: body.amount_cents } : {}),
  };
}

/**
 * The billing sub-agent's embedded model: it reads the refund request (JSON), calls
 * process_refund with it, and answers with a receipt through final_answer.
 */
export function billingModel(): ScriptedModel {
  return new ScriptedModel(
    (request) => {
      const last = request.messages[request.messages.length - 1];
      if (last?.role === 'user') return call('process_refund', JSON.parse(last.content));
      const body = last?.role === 'tool' ? JSON.parse(last.content) : {};
      const receipt =
        body.status === 'success'
          ? {
              status: 'refunded',
              order_id: body.order_id,
              refund_id: body.refund_id,
              amount_cents: body.amount_cents,
              currency: body.currency,
              message: `Refund ${body.refund_status}`,
            }
          : { status: 'refused', order_id: String(body.order_id ?? 'unknown'), message: body.message ?? 'The refund failed' };
      return call('final_answer', receipt);
    },
    { name: 'scripted-billing' },
  );
}

function answerUser(text: string, request: ModelRequest): Step {
  if (/^hi\b/i.test(text)) {
    const remembered = /What you remember about this customer:\n- (.+)/.exec(request.instructions ?? '');
    return {
      text: remembered
        ? `Welcome back, Alice! I remember: ${remembered[1].toLowerCase()}.`
        : 'Hello Alice, nice to meet you! How can I help?',
    };
  }
  const where = /where is my order ([A-Z]-\d+)/i.exec(text);
  if (where) return call('order_lookup', { order_id: where[1] });
  const refund = /refund (\d+) dollars/i.exec(text);
  // A first attempt with the amount written as text, as models sometimes do; the schema says integer cents.
  if (refund && request.tools.some((t) => t.name === 'billing'))
    return call('billing', { order_id: lastOrderId(request), amount_cents: `${refund[1]} dollars`, reason: 'Mug arrived broken' });
  if (refund) return call('process_refund', { amount_cents: `${refund[1]} dollars`, reason: 'Mug arrived broken' });
  const other = /order ([A-Z]-\d+)/i.exec(text);
  if (other) return call('lookup_order', { orderId: other[1] });
  if (/always|prefer/i.test(text)) return call('remember_preference', { preference: 'Prefers updates by email' });
  return { text: 'How can I help with your orders?' };
}

function readToolResult(result: ToolMessage, request: ModelRequest): Step {
  const body = JSON.parse(result.content);
  if (body.code === 'INVALID_ARGUMENTS') return correct(result, body, request);
  switch (result.name) {
    case 'order_lookup':
      return body.status === 'success'
        ? { text: `Order ${body.order.id}: ${money(body.order.totalCents)} ${body.order.currency}, ${body.order.fulfillmentStatus}.` }
        : { text: `Sorry, I could not find that order (${body.message}).` };
    case 'process_refund':
      return body.status === 'success'
        ? {
            text: `Done: refund ${body.refund_id} of ${money(body.amount_cents)} ${body.currency} for order ${body.order_id} is ${body.refund_status}.`,
          }
        : { text: `Sorry, the refund did not go through: ${body.message}` };
    case 'billing':
      return body.status === 'refunded'
        ? {
            text: `Done: billing refunded ${money(body.amount_cents)} ${body.currency} for order ${body.order_id} (refund ${body.refund_id}).`,
          }
        : { text: `Sorry, billing could not refund it: ${body.message}` };
    case 'lookup_order':
      if (body.status === 'error') return { text: 'Sorry, I cannot look that order up right now.' };
      if (body.status === 'blocked') return { text: 'I am sorry, I cannot share anything about that order: it is not on your account.' };
      return {
        text: body.status === 'found' ? `Order ${body.orderId} is ${body.fulfillmentStatus}.` : `There is no order ${body.orderId}.`,
      };
    case 'remember_preference':
      return { text: body.status === 'remembered' ? 'Noted: updates will go to you by email.' : 'I already have that noted: email it is.' };
    default:
      return { text: body.status === 'error' ? `Sorry, something went wrong: ${body.message}` : 'Done.' };
  }
}

/** The order this conversation last looked up (billing is told it; process_refund reads it from the session). */
function lastOrderId(request: ModelRequest): string | undefined {
  const lookups = request.messages.filter((m): m is ToolMessage => m.role === 'tool' && m.name === 'order_lookup');
  const last = lookups.at(-1);
  return last ? JSON.parse(last.content).order?.id : undefined;
}

/** Cents as the customer reads them: 5990 → "59.90". */
function money(cents: number): string {
  return (cents / 100).toFixed(2);
}

/** Reads the field errors and calls again with the fields fixed (here: 2000 cents out of "20 dollars"). */
function correct(result: ToolMessage, body: { errors: Array<{ path: string }> }, request: ModelRequest): Step {
  const original = request.messages
    .flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []))
    .find((c) => c.id === result.toolCallId);
  const args = JSON.parse(original?.arguments ?? '{}');
  for (const { path } of body.errors) {
    const number = Number(/[\d.]+/.exec(String(args[path]))?.[0]);
    if (Number.isFinite(number)) args[path] = path.endsWith('_cents') ? Math.round(number * 100) : number;
    else delete args[path];
  }
  return call(result.name, args);
}

function call(name: string, args: Record<string, unknown>): Step {
  return { toolCalls: [{ name, arguments: args }] };
}
