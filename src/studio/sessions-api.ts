/**
 * The Sessions page's API: the store's sessions and memories by tenant and user, read-only. It
 * lists, loads and searches; it never writes (decisions on a paused run are made in the Chat page,
 * through the agent).
 */
import { AgentMemory } from '../session/agent-memory';
import type { StudioContext, StudioPageApi, StudioRequest } from './routes';
import { idParam, listing, readParams, SessionsRequestError, storeOf, StoredItemNotFoundError } from './sessions-params';
import { sessionView } from './sessions-view';

const MAX_QUERY = 1000;

export function sessionsPage(context: StudioContext): StudioPageApi {
  const list = (method: 'listSessions' | 'listMemories') => async (request: StudioRequest) => {
    const p = readParams(request.query, ['tenant', 'user', 'after', 'limit'] as const);
    const limit = p.limit === undefined ? undefined : /^\d{1,4}$/.test(p.limit) ? Number(p.limit) : NaN;
    if (Number.isNaN(limit)) throw new SessionsRequestError(`Parameter "limit" must be a whole number, got ${JSON.stringify(p.limit)}.`);
    const page = await listing(
      storeOf(context.store),
      method,
    )({
      tenantId: idParam('tenantId', p.tenant),
      userId: idParam('userId', p.user),
      after: p.after,
      limit,
    });
    return { json: { items: page.items, next: page.next ?? null } };
  };
  const memoryKey = (request: StudioRequest) => ({
    agentName: idParam('agentName', request.params.agent)!,
    userId: idParam('userId', request.params.user)!,
    tenantId: idParam('tenantId', readParams(request.query, ['tenant', 'q', 'limit'] as const).tenant),
  });
  return {
    routes: [
      { method: 'GET', path: '/api/sessions', handle: list('listSessions') },
      {
        method: 'GET',
        path: '/api/sessions/:id',
        handle: async (request) => {
          const { tenant } = readParams(request.query, ['tenant'] as const);
          const key = { sessionId: idParam('sessionId', request.params.id)!, tenantId: idParam('tenantId', tenant) };
          const snapshot = await storeOf(context.store).loadSession(key);
          if (!snapshot)
            throw new StoredItemNotFoundError(`session "${key.sessionId}"${tenant === undefined ? '' : ` in tenant "${tenant}"`}`);
          return { json: await sessionView(snapshot, context.agent) };
        },
      },
      { method: 'GET', path: '/api/memories', handle: list('listMemories') },
      {
        method: 'GET',
        path: '/api/memories/:agent/:user',
        handle: async (request) => {
          readParams(request.query, ['tenant'] as const);
          const key = memoryKey(request);
          const snapshot = await storeOf(context.store).loadMemory(key);
          if (!snapshot) throw new StoredItemNotFoundError(`memory of agent "${key.agentName}" for user "${key.userId}"`);
          return {
            json: {
              ...key,
              tenantId: key.tenantId ?? null,
              summary: snapshot.summary,
              version: snapshot.version,
              entries: snapshot.entries,
            },
          };
        },
      },
      {
        method: 'GET',
        path: '/api/memories/:agent/:user/search',
        handle: async (request) => {
          const key = memoryKey(request);
          const { q, limit } = readParams(request.query, ['tenant', 'q', 'limit'] as const);
          if (q === undefined || !q.trim()) throw new SessionsRequestError('Parameter "q" (what to search for) is required.');
          if (q.length > MAX_QUERY) throw new SessionsRequestError(`Parameter "q" is longer than ${MAX_QUERY} characters.`);
          const n = limit === undefined ? 10 : /^\d{1,2}$/.test(limit) && Number(limit) >= 1 ? Number(limit) : NaN;
          if (Number.isNaN(n)) throw new SessionsRequestError('Parameter "limit" must be a whole number from 1 to 99.');
          const store = storeOf(context.store);
          const snapshot = await store.loadMemory(key);
          if (!snapshot) throw new StoredItemNotFoundError(`memory of agent "${key.agentName}" for user "${key.userId}"`);
          // The store's own search where it has one (in the database); else the memory's, as a tool's search.
          const results = store.searchMemory ? await store.searchMemory(key, q, n) : AgentMemory.fromSnapshot(snapshot).search(q, n);
          return { json: { query: q, results } };
        },
      },
    ],
  };
}
