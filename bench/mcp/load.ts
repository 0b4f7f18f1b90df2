/**
 * The load generator for bench/mcp/run.ts, in a second process: raw HTTP on loopback (node:http,
 * keep-alive), one closed loop per MCP session. argv: port sessions mode(valid|mixed) durationMs
 * closeSessions. Prints one JSON line: calls/s, median session setup, and (closeSessions > 0)
 * the time to open and end that many sessions. Mode `modern`: `sessions` closed loops of
 * protocol 2026-07-28 calls, no initialize and no session (toolwright only).
 */
import { Agent, request } from 'node:http';

const [port, sessions, mode, durationMs, closeSessions] = [
  Number(process.argv[2]),
  Number(process.argv[3]),
  process.argv[4],
  Number(process.argv[5]),
  Number(process.argv[6] ?? 0),
];
const agent = new Agent({ keepAlive: true, maxSockets: Math.max(16, sessions) });
const VALID = { order_id: 'A-7', amount: 5, reason: 'broken' };
const INVALID = { order_id: 'A-7', amount: -1, reason: 'broken' };

const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const MODERN = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'process_refund' };

function post(
  body: unknown,
  sessionId?: string,
  method = 'POST',
  extra: Record<string, string> = {},
): Promise<{ status: number; sessionId?: string; text: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? '' : JSON.stringify(body);
    // A content-length lets node send headers and body in one packet (chunked bodies met Nagle and delayed ACKs: 40 ms a call).
    const headers: Record<string, string> = {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(data)),
      ...extra,
    };
    if (sessionId) {
      headers['mcp-session-id'] = sessionId;
      headers['mcp-protocol-version'] = '2025-06-18';
    }
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          sessionId: res.headers['mcp-session-id'] as string | undefined,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    req.end(data);
  });
}

async function open(): Promise<{ id: string; ms: number }> {
  const t0 = performance.now();
  const init = await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
  });
  if (!init.sessionId) throw new Error(`initialize failed: ${init.status} ${init.text}`);
  const ack = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, init.sessionId);
  if (ack.status !== 202) throw new Error(`initialized failed: ${ack.status}`);
  return { id: init.sessionId, ms: performance.now() - t0 };
}

async function main() {
  // `open`: opens `sessions` sessions (16 at a time) and prints their ids; `delete`: ends those in $IDS.
  if (mode === 'open') {
    const ids: string[] = [];
    for (let i = 0; i < sessions; i += 16)
      ids.push(...(await Promise.all(Array.from({ length: Math.min(16, sessions - i) }, open))).map((s) => s.id));
    process.stdout.write(JSON.stringify({ ids }) + '\n');
    return;
  }
  if (mode === 'delete') {
    for (const id of JSON.parse(process.env.IDS ?? '[]') as string[]) await post(undefined, id, 'DELETE');
    process.stdout.write(JSON.stringify({}) + '\n');
    return;
  }
  if (closeSessions > 0) {
    const t0 = performance.now();
    for (let i = 0; i < closeSessions; i += 16) {
      await Promise.all(
        Array.from({ length: Math.min(16, closeSessions - i) }, async () => {
          const s = await open();
          await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'process_refund', arguments: VALID } }, s.id);
          await post(undefined, s.id, 'DELETE');
        }),
      );
    }
    process.stdout.write(JSON.stringify({ closedMs: performance.now() - t0 }) + '\n');
    return;
  }
  if (mode === 'modern') {
    const call = (id: number) =>
      post(
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'process_refund', arguments: VALID, _meta: ENVELOPE } },
        undefined,
        'POST',
        MODERN,
      );
    const first = await call(1);
    if (first.status !== 200 || !first.text.includes('R-A-7')) throw new Error(`unexpected answer: ${first.status} ${first.text}`);
    let calls = 0;
    const deadline = performance.now() + durationMs;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: sessions }, async () => {
        for (let n = 0; performance.now() < deadline; n++) {
          const res = await call(n + 10);
          if (res.status !== 200) throw new Error(`call failed: ${res.status} ${res.text}`);
          calls++;
        }
      }),
    );
    process.stdout.write(JSON.stringify({ callsPerSec: calls / ((performance.now() - t0) / 1000), calls, setupMs: 0 }) + '\n');
    return;
  }
  const opened = await Promise.all(Array.from({ length: sessions }, open));
  const setups = opened.map((s) => s.ms).sort((a, b) => a - b);
  // Check both answers once before timing.
  const ok = await post(
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'process_refund', arguments: VALID } },
    opened[0].id,
  );
  const bad = await post(
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'process_refund', arguments: INVALID } },
    opened[0].id,
  );
  if (!ok.text.includes('R-A-7') || !bad.text.includes('"isError":true')) throw new Error(`unexpected answers:\n${ok.text}\n${bad.text}`);
  let calls = 0;
  const deadline = performance.now() + durationMs;
  const t0 = performance.now();
  await Promise.all(
    opened.map(async (s, k) => {
      for (let n = 0; performance.now() < deadline; n++) {
        const args = mode === 'mixed' && (n + k) % 2 === 1 ? INVALID : VALID;
        const res = await post(
          { jsonrpc: '2.0', id: n + 10, method: 'tools/call', params: { name: 'process_refund', arguments: args } },
          s.id,
        );
        if (res.status !== 200) throw new Error(`call failed: ${res.status} ${res.text}`);
        calls++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  process.stdout.write(JSON.stringify({ callsPerSec: calls / seconds, calls, setupMs: setups[setups.length >> 1] }) + '\n');
}

main().catch((e) => {
  process.stderr.write(String(e?.stack ?? e) + '\n');
  process.exit(1);
});
