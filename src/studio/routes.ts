/**
 * The studio's server-side pieces meet here: what a page's API module is given (the context) and
 * what it gives back (routes, and what to close when the studio stops).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Agent } from '../agent/agent';
import type { ToolRegistry } from '../registry/tool-registry';
import type { SessionStore } from '../stores/store';

/** Who the page acts as: chosen in the page's header, sent with every API call. */
export interface StudioIdentity {
  userId: string;
  tenantId?: string;
}

export interface StudioContext {
  registry: ToolRegistry;
  /** The agent the Chat page talks to; undefined when the studio was given a registry only. */
  agent?: Agent;
  /** The agent's store, or `StudioOptions.store`; undefined: the Sessions page has nothing to browse. */
  store?: SessionStore;
  /** The identity used when a request names none. */
  defaultIdentity: StudioIdentity;
  /** Failures that are not the page's (a store that broke, a bug): `StudioOptions.onError`. */
  report: (error: unknown) => void;
}

export interface StudioRequest {
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  /** The parsed JSON body of a POST (secure-json-parse: no prototype keys); undefined for GET. */
  body: unknown;
  identity: StudioIdentity;
  raw: IncomingMessage;
}

export interface StudioAnswer {
  status?: number;
  json: unknown;
}

export interface StudioRoute {
  method: 'GET' | 'POST';
  /** `/api/...`, with `:name` segments (decoded into `params`). */
  path: string;
  /** A JSON answer; a thrown ToolwrightError is answered as `{ error: { code, message } }`. */
  handle?(request: StudioRequest): Promise<StudioAnswer>;
  /** Takes over the response itself (a stream); the body is not read for it. */
  node?(req: IncomingMessage, res: ServerResponse, identity: StudioIdentity): Promise<void>;
}

/** One page's server side. */
export interface StudioPageApi {
  routes: StudioRoute[];
  close?(): Promise<void>;
}

export type StudioPageFactory = (context: StudioContext) => StudioPageApi;

/** The route matching `method` and `path`, with its params; undefined when none does. */
export function matchRoute(
  routes: readonly StudioRoute[],
  method: string,
  path: string,
): { route: StudioRoute; params: Record<string, string> } | undefined {
  const parts = path.split('/');
  for (const route of routes) {
    if (route.method !== method) continue;
    const pattern = route.path.split('/');
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = Object.create(null) as Record<string, string>;
    let ok = true;
    for (let i = 0; i < pattern.length && ok; i++) {
      if (pattern[i].startsWith(':')) {
        try {
          params[pattern[i].slice(1)] = decodeURIComponent(parts[i]);
        } catch {
          ok = false; // a malformed escape names no resource
        }
      } else ok = pattern[i] === parts[i];
    }
    if (ok) return { route, params };
  }
  return undefined;
}
