/**
 * `createStudio(registry | agent)`: the studio's web app on a loopback port, for a developer to see
 * and drive the tools, the chat, the stored sessions and the traces. Everything it does goes through
 * the registry and the agent, with their policies, as every other surface does.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Agent } from '../agent/agent';
import { ToolwrightConfigError } from '../errors/errors';
import type { ToolRegistry } from '../registry/tool-registry';
import type { SessionStore } from '../stores/store';
import { answer } from './api-server';
import { loadAssets } from './assets';
import { allowedHosts, checkLoopback, newToken } from './guard';
import { PAGES } from './pages';
import type { StudioContext, StudioPageApi, StudioRoute } from './routes';

export interface StudioOptions {
  /** Loopback only: `127.0.0.1` (default), `::1` or `localhost`. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** The store the Sessions page browses when the studio is given a registry (an agent brings its own). */
  store?: SessionStore;
  /** Who the page acts as until it chooses another user. Default `studio`. */
  userId?: string;
  tenantId?: string;
  /** The API token (at least 16 characters); default a random one. */
  token?: string;
  /** Failures that are not the page's (answered 500). Default: `process.emitWarning`. */
  onError?: (error: unknown) => void;
}

export interface Studio {
  /** The URL to open, token included. */
  readonly url: string;
  readonly origin: string;
  readonly token: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function createStudio(target: ToolRegistry | Agent, options: StudioOptions = {}): Promise<Studio> {
  const host = options.host ?? '127.0.0.1';
  checkLoopback(host);
  const token = options.token ?? newToken();
  if (token.length < 16) throw new ToolwrightConfigError('createStudio: token must be at least 16 characters.');
  const agent = isAgent(target) ? target : undefined;
  const onError = options.onError ?? ((error: unknown) => process.emitWarning(error instanceof Error ? error : String(error)));
  const context: StudioContext = {
    registry: agent ? agent.registry : (target as ToolRegistry),
    agent,
    store: agent?.store ?? options.store,
    defaultIdentity: { userId: options.userId ?? 'studio', tenantId: options.tenantId },
    report: onError,
  };
  const pages: StudioPageApi[] = PAGES.map((page) => page(context));
  const routes: StudioRoute[] = [infoRoute(context), ...pages.flatMap((page) => page.routes)];
  const assets = loadAssets();
  const parts = { routes, assets, token, defaultIdentity: context.defaultIdentity, onError, hosts: new Set<string>() };
  const server = createServer((req, res) => {
    answer(parts, req, res).catch((error: unknown) => {
      onError(error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  const port = await listen(server, host, options.port ?? 0);
  parts.hosts = allowedHosts(host, port);
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url: `${origin}/?token=${token}`,
    origin,
    token,
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled(pages.map((page) => (page.close ? page.close() : Promise.resolve())));
    },
  };
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** `GET /api/info`: what the studio was given, for the page's header and which pages have something to show. */
function infoRoute(context: StudioContext): StudioRoute {
  return {
    method: 'GET',
    path: '/api/info',
    handle: async () => ({
      json: {
        tools: context.registry.names().length,
        agent: context.agent ? { name: context.agent.name, description: context.agent.description ?? null } : null,
        store: context.store ? context.store.constructor.name : null,
        identity: context.defaultIdentity,
      },
    }),
  };
}

/** Duck-typed: an app's config may load toolwright from another path than the CLI's (src and dist, a nested install). */
function isAgent(target: ToolRegistry | Agent): target is Agent {
  return typeof (target as Partial<Agent>).stream === 'function' && typeof (target as Partial<Agent>).registry === 'object';
}
