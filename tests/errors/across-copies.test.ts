/**
 * Two copies of toolwright in one process: the CLI's own, and the one a tools module it loads
 * brings. `instanceof ToolwrightError` holds across them, so an MCP client gets the tool's typed
 * error (TOOL_FAILED, INVALID_ARGUMENTS), not INTERNAL. The second copy is the CLI's compiled build.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolInputError, ToolwrightError, type ToolRegistry } from '../../src';
import { createMcpServer } from '../../src/mcp';
import { buildCli } from '../cli/build-cli';

type Copy = typeof import('../../src');

const dir = mkdtempSync(join(tmpdir(), 'toolwright-copies-'));
let other: Copy;
let registry: ToolRegistry;

beforeAll(() => {
  const entry = join(dirname(buildCli().main), '..', 'index.js');
  const file = join(dir, 'tools.js');
  writeFileSync(
    file,
    `'use strict';
const { ToolRegistry } = require(${JSON.stringify(entry)});
const text = { type: 'object', properties: { text: { type: 'string', minLength: 1 } }, required: ['text'], additionalProperties: false };
class FailsTool {
  definition() { return { name: 'fails', description: 'Always fails', parameters: text }; }
  execute() { throw new Error('database down'); }
}
exports.registry = ToolRegistry.build({ container: { get: (cls) => new cls() }, tools: [FailsTool] });
`,
  );
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the second copy, loaded as the CLI loads a user's module
  other = require(entry) as Copy;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a module written at run time
  registry = (require(file) as { registry: ToolRegistry }).registry;
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('instanceof across copies', () => {
  it('the other copy’s errors are ToolwrightErrors here; its subclasses stay its own', () => {
    expect(other.ToolwrightError).not.toBe(ToolwrightError);
    const input = new other.ToolInputError('INVALID_ARGUMENTS', 't', [
      { path: 'a', constraint: 'isString', message: 'a must be a string' },
    ]);
    expect(input instanceof ToolwrightError).toBe(true);
    expect(new other.StoreUnavailableError('redis', new Error('down')) instanceof ToolwrightError).toBe(true);
    expect(input instanceof ToolInputError).toBe(false);
    expect(new ToolInputError('INVALID_ARGUMENTS', 't', []) instanceof ToolwrightError).toBe(true);
  });

  it('what only looks like one is not: a plain Error, an object with a code, a marked object that is no Error', () => {
    const mark = Symbol.for('toolwright.error');
    const fake = { [mark]: true, code: 'TOOL_FAILED', toToolResult: () => '{}' };
    const markedError = Object.assign(new Error('x'), { [mark]: true });
    for (const value of [new Error('x'), { code: 'TOOL_FAILED' }, fake, markedError, null, undefined, 'TOOL_FAILED']) {
      expect(value instanceof ToolwrightError).toBe(false);
    }
  });
});

describe('an MCP server of this copy serving a registry of the other', () => {
  async function call(args: Record<string, unknown>) {
    const server = createMcpServer(registry, { onError: () => undefined });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      const result = await client.callTool({ name: 'fails', arguments: args });
      return JSON.parse((result.content as { text: string }[])[0].text) as { code: string };
    } finally {
      await client.close();
    }
  }

  it('answers the tool’s own failure as TOOL_FAILED and bad arguments as INVALID_ARGUMENTS, never INTERNAL', async () => {
    expect((await call({ text: 'x' })).code).toBe('TOOL_FAILED');
    expect((await call({ text: 3 })).code).toBe('INVALID_ARGUMENTS');
  });
});
