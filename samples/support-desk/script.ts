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

/**
 * The embedded model of the demo: a ScriptedModel whose every step reads the request, the way a
 * real model would — it answers the user's message, reads tool results, and corrects its own
 * call after an INVALID_ARGUMENTS error.
 */
export function supportDeskModel(): ScriptedModel {
  return new ScriptedModel((request) => nextStep(request), { name: 'scripted-support-desk' });
}

function nextStep(request: ModelRequest): ScriptedStep {
  const last = request.messages[request.messages.length - 1];
  if (last?.role === 'user') return answerUser(last.content, request);
  if (last?.role === 'tool') return readToolResult(last, request);
  return { text: 'Sorry, I lost the thread. Could you say that again?' };
}

function answerUser(text: string, request: ModelRequest): ScriptedStep {
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
  if (refund) return call('process_refund', { amount_cents: `${refund[1]} dollars`, reason: 'Mug arrived broken' });
  const other = /order ([A-Z]-\d+)/i.exec(text);
  if (other) return call('lookup_order', { orderId: other[1] });
  if (/always|prefer/i.test(text)) return call('remember_preference', { preference: 'Prefers updates by email' });
  return { text: 'How can I help with your orders?' };
}

function readToolResult(result: ToolMessage, request: ModelRequest): ScriptedStep {
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

/** Cents as the customer reads them: 5990 → "59.90". */
function money(cents: number): string {
  return (cents / 100).toFixed(2);
}

/** Reads the field errors and calls again with the fields fixed (here: 2000 cents out of "20 dollars"). */
function correct(result: ToolMessage, body: { errors: Array<{ path: string }> }, request: ModelRequest): ScriptedStep {
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

function call(name: string, args: Record<string, unknown>): ScriptedStep {
  return { toolCalls: [{ name, arguments: args }] };
}
