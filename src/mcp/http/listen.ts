import type { ServerResponse } from 'node:http';
import type { ToolRegistry } from '../../registry/tool-registry';
import type { AgentContext } from '../../session/agent-context';
import type { ModernMessage, Refusal } from './era';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** Open listen streams a process holds at most, and one caller at most: each holds a connection and listeners until closed. */
export const MAX_LISTENS = 1000;
export const MAX_LISTENS_PER_CALLER = 16;

/** Counts open listen streams, so no client holds every connection open (503, try again). */
export class ListenSlots {
  private total = 0;
  private readonly byOwner = new Map<string, number>();

  /** Takes a slot for this caller, or says why not. */
  admit(owner: string): Omit<Refusal, 'id'> | undefined {
    const mine = this.byOwner.get(owner) ?? 0;
    if (this.total >= MAX_LISTENS || mine >= MAX_LISTENS_PER_CALLER)
      return { status: 503, code: -32000, message: 'Too many open subscriptions/listen streams; close one or try again later.' };
    this.total++;
    this.byOwner.set(owner, mine + 1);
    return undefined;
  }

  release(owner: string): void {
    this.total--;
    const left = (this.byOwner.get(owner) ?? 1) - 1;
    if (left > 0) this.byOwner.set(owner, left);
    else this.byOwner.delete(owner);
  }
}

/** What a listen request asked for (SEP-2575's SubscriptionFilter), as far as toolwright reads it. */
export interface ListenFilter {
  toolsListChanged: boolean;
  resourceSubscriptions: string[];
}

/**
 * What a listen stream can carry here: resource updates, when there are resources. tools/list_changed
 * is not offered yet (the registry does not say whether its tool list can change).
 */
export function listenable(registry: ToolRegistry): { resources: boolean; tools: boolean } {
  return { resources: registry.resources().length > 0, tools: false };
}

/** The request's filter, or why it is refused (-32602, HTTP 400). */
export function listenFilter(message: ModernMessage): ListenFilter | Refusal {
  const invalid = (why: string): Refusal => ({ status: 400, code: -32602, message: `Invalid params: ${why}`, id: message.id });
  const filter = message.params!.notifications;
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) return invalid('notifications must be an object.');
  const { resourceSubscriptions: uris, toolsListChanged } = filter as Record<string, unknown>;
  if (uris !== undefined && !(Array.isArray(uris) && uris.every((uri) => typeof uri === 'string')))
    return invalid('notifications.resourceSubscriptions must be an array of URI strings.');
  if (toolsListChanged !== undefined && typeof toolsListChanged !== 'boolean')
    return invalid('notifications.toolsListChanged must be a boolean.');
  return { toolsListChanged: toolsListChanged === true, resourceSubscriptions: uris ?? [] };
}

/**
 * `subscriptions/listen` (2026-07-28): the request's own response is the event stream. First the
 * acknowledgement of what is honoured, then each requested notification, tagged with the request's
 * id, until the client closes it; then the listeners are removed. A resource update goes only to a
 * caller who may read the resource at that moment (its context is loaded afresh: a logout between
 * updates counts). Updates are this process's `registry.resourceUpdated(uri)`: they do not cross replicas.
 */
export async function listen(
  res: ServerResponse,
  registry: ToolRegistry,
  id: string | number,
  filter: ListenFilter,
  context: () => Promise<AgentContext>,
  onError: (error: unknown) => void,
): Promise<void> {
  const can = listenable(registry);
  // Behind no caller-dependent gate, the caller's session need not be read again for each update.
  let once: Promise<AgentContext> | undefined;
  const load = () => (registry.featuresGated ? context() : (once ??= context()));
  const readable = async (uri: string) => registry.hasResource(uri, await load());
  // A URI this caller may not read is left out of the acknowledgement, as a missing one is: the two are not told apart.
  const uris = can.resources ? filter.resourceSubscriptions : [];
  const subscribed = new Set((await Promise.all(uris.map(async (uri) => ((await readable(uri)) ? [uri] : [])))).flat());
  const tools = can.tools && filter.toolsListChanged;
  const send = (method: string, params: Record<string, unknown> = {}) => {
    const message = { jsonrpc: '2.0', method, params: { ...params, _meta: { [SUBSCRIPTION_ID]: id } } };
    if (!res.writableEnded) res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  };
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  send('notifications/subscriptions/acknowledged', {
    notifications: { ...(tools && { toolsListChanged: true }), ...(subscribed.size > 0 && { resourceSubscriptions: [...subscribed] }) },
  });
  const stops: (() => void)[] = [];
  if (tools) stops.push(registry.onToolsChanged(() => send('notifications/tools/list_changed')));
  if (subscribed.size > 0)
    stops.push(
      registry.onResourceUpdated((uri) => {
        if (subscribed.has(uri)) readable(uri).then((may) => may && send('notifications/resources/updated', { uri }), onError);
      }),
    );
  await new Promise<void>((resolve) => (res.destroyed ? resolve() : res.once('close', resolve)));
  for (const stop of stops) stop();
}
