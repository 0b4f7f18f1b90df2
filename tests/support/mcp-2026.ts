/**
 * Raw MCP 2026-07-28 requests for the tests that drive the stateless protocol by hand (tasks,
 * multi-process): the headers matching the body, the client's capabilities in `_meta`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const TASKS = 'io.modelcontextprotocol/tasks';

export interface Rpc {
  status: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** One request; `declared` (default true): the client declares the tasks extension. */
export async function rpc2026(url: string, token: string, method: string, params: Record<string, unknown>, declared = true): Promise<Rpc> {
  const name = method === 'tools/call' ? params.name : params.taskId;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${token}`,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
  };
  if (typeof name === 'string') headers['mcp-name'] = name;
  const capabilities = declared ? { elicitation: {}, extensions: { [TASKS]: {} } } : { elicitation: {} };
  const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': capabilities };
  const res = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta } }),
  });
  const body = (await res.json()) as Rpc;
  return { status: res.status, result: body.result, error: body.error };
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads until `done` holds (every 100 ms, 10 s at most). */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = await read();
    if (done(value)) return value;
    await pause(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The lines a worker's tool wrote to `<dir>/<mark>` (what ran, in which process). */
export function traceIn(dir: string, mark: string): string[] {
  const file = join(dir, mark);
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
}
