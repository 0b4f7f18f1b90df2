/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, server scenarios, the
 * default "active" suite) against samples/mcp-everything. A scenario fails the test when it fails
 * and is not in expected-failures.json, and when it is listed there but passes: the list only shrinks.
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

it('passes every active server scenario not listed in expected-failures.json, and none listed', async () => {
  const verdicts = await runSuite('@modelcontextprotocol/conformance', server, [], /Running active suite \((\d+) scenarios\)/);
  expect(disagreements(verdicts, join(__dirname, 'expected-failures.json'))).toEqual({ unexpected: [], stale: [], unknown: [] });
});
