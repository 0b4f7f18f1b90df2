import { ScriptedModel, type Message, type ScriptedStep } from 'toolwright';
import type { ModelRequest } from 'toolwright/models';

/** What the account manager says, one run of the agent per line. */
export const CONVERSATION: readonly string[] = [
  'Look up ACME-1 and note that they prefer phone calls.',
  'What do we know about Acme Corp?',
  'Forget everything about Acme Corp.',
  'What do we know about Acme Corp?',
];

type ToolMessage = Extract<Message, { role: 'tool' }>;

/**
 * The embedded model: a ScriptedModel that reads each request as a real model would. It looks
 * the account up with the local tool, then keeps and reads notes with the remote memory server's tools.
 */
export function accountDeskModel(): ScriptedModel {
  return new ScriptedModel((request) => nextStep(request), { name: 'scripted-account-desk' });
}

function nextStep(request: ModelRequest): ScriptedStep {
  const last = request.messages[request.messages.length - 1];
  if (last?.role === 'user') return answerUser(last.content);
  if (last?.role === 'tool') return readToolResult(last, lastUserText(request));
  return { text: 'Sorry, could you say that again?' };
}

function answerUser(text: string): ScriptedStep {
  const lookup = /look up ([A-Z]+-\d+)/i.exec(text);
  if (lookup) return call('lookup_account', { account_id: lookup[1].toUpperCase() });
  const forget = /forget everything about (.+?)\.?$/i.exec(text);
  if (forget) return call('notes_delete_entities', { entityNames: [forget[1]] });
  const about = /what do we know about (.+?)\??$/i.exec(text);
  if (about) return call('notes_search_nodes', { query: about[1] });
  return { text: 'I can look accounts up and keep notes on them.' };
}

function readToolResult(result: ToolMessage, userText: string): ScriptedStep {
  const body = parse(result.content);
  switch (result.name) {
    case 'lookup_account': {
      if (body.status !== 'found') return { text: `There is no account ${String(body.account_id)}.` };
      const note = /note that they (.+?)\.?$/i.exec(userText);
      if (!note) return { text: `${String(body.name)}: ${String(body.plan)} plan, ${String(body.seats)} seats.` };
      return call('notes_create_entities', {
        entities: [{ name: body.name, entityType: 'account', observations: [`${String(body.account_id)}: ${note[1]}`] }],
      });
    }
    case 'notes_create_entities':
      return { text: `Noted: ${observations(body).join('; ')}.` };
    case 'notes_search_nodes': {
      const known = observations(body);
      return { text: known.length ? `We know: ${known.join('; ')}.` : 'We have no notes on that.' };
    }
    case 'notes_delete_entities':
      return {
        text: typeof body.code === 'string' ? `The notes were kept (${body.code}).` : 'Done: the notes on that account are deleted.',
      };
    default:
      return { text: 'Done.' };
  }
}

/** The observations in a knowledge-graph answer (server-memory answers `{ entities: [...] }`). */
function observations(body: Record<string, unknown>): string[] {
  const entities = Array.isArray(body.entities) ? (body.entities as Array<{ observations?: unknown }>) : [];
  return entities.flatMap((e) => (Array.isArray(e.observations) ? e.observations.map(String) : []));
}

/** A tool result as the model reads it: a JSON object, or the JSON text of its first text part. */
function parse(content: string): Record<string, unknown> {
  const body = JSON.parse(content) as Record<string, unknown>;
  const first = Array.isArray(body.content) ? (body.content[0] as { type?: string; text?: string } | undefined) : undefined;
  if (first?.type === 'text' && typeof first.text === 'string' && /^[[{]/.test(first.text))
    return JSON.parse(first.text) as Record<string, unknown>;
  return body;
}

function lastUserText(request: ModelRequest): string {
  const user = [...request.messages].reverse().find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : '';
}

function call(name: string, args: Record<string, unknown>): ScriptedStep {
  return { toolCalls: [{ id: `call_${name}_${Math.random().toString(36).slice(2, 8)}`, name, arguments: args }] };
}
