/**
 * Protocol revision 2026-07-28: the conformance suite's next line (0.2.0 alphas, installed as
 * @modelcontextprotocol/conformance-next) run with `--requirements 2026-07-28` against the same
 * samples/mcp-everything that passes the 2025-11-25 suite, on the same endpoint. Each scenario that
 * still fails is listed in expected-failures-2026.json with the reason; the test fails when an unlisted
 * scenario fails and when a listed one passes, so the list only shrinks.
 */
import { join } from 'node:path';
import { disagreements, runSuite, startEverything, type EverythingServer } from '../support/conformance-suite';

jest.setTimeout(300_000);

let server: EverythingServer;
beforeAll(async () => {
  server = await startEverything();
});
afterAll(async () => {
  await server?.stop();
});

it('passes every 2026-07-28 scenario not listed in expected-failures-2026.json, and none listed', async () => {
  const verdicts = await runSuite(
    '@modelcontextprotocol/conformance-next',
    server,
    ['--requirements', '2026-07-28'],
    /Running requirements 2026-07-28 \((\d+) scenarios\)/,
  );
  expect(disagreements(verdicts, join(__dirname, 'expected-failures-2026.json'))).toEqual({ unexpected: [], stale: [], unknown: [] });
});
