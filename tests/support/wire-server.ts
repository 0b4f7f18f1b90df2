import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the fake provider received, body parsed. */
export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export type Reply = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface WireServer {
  /** `http://127.0.0.1:<port>` plus the path prefix. */
  baseURL: string;
  /** What arrived, in order; emptied before each test. */
  received: Received[];
  /** What to answer, in order; each test queues its own. */
  replies: Reply[];
}

/**
 * A loopback HTTP server standing in for a model provider, speaking its real wire format as the
 * test queues it. Registers the jest hooks that start it, reset it before each test and stop it.
 */
export function useWireServer(prefix: string, noReply: Reply): WireServer {
  const wire: WireServer = { baseURL: '', received: [], replies: [] };
  let server: http.Server;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => {
        wire.received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: raw ? JSON.parse(raw) : undefined });
        (wire.replies.shift() ?? noReply)(req, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    wire.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    wire.received = [];
    wire.replies = [];
  });
  return wire;
}

/** A JSON reply with the given status (and extra headers). */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
}
