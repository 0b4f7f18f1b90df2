/**
 * A tool whose JSON Schema no decorator writes gives it by hand in `definition()`, in MCP's default
 * dialect (2020-12): it registers, MCP lists it exactly as written, and its arguments are checked
 * against its common keywords (`$ref` into `$defs`, `allOf`/`anyOf`, `if`/`then`/`else`).
 */
import 'reflect-metadata';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolRegistry, type ToolDefinition, type ToolInterface } from '../../src';
import { createMcpServer } from '../../src/mcp';

const SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false } },
  properties: {
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
} as const;

class ContactTool implements ToolInterface {
  definition(): ToolDefinition {
    return {
      name: 'contact',
      description: 'Contact someone',
      parameters: structuredClone(SCHEMA) as unknown as ToolDefinition['parameters'],
    };
  }
  execute(args: Record<string, unknown>): object {
    return { got: args };
  }
}

it('lists a hand-written 2020-12 schema as written and validates arguments against it', async () => {
  const registry = ToolRegistry.build({ tools: [ContactTool] });
  const server = createMcpServer(registry, { onError: () => undefined });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 't', version: '1' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  try {
    const { tools } = await client.listTools();
    expect(tools[0].inputSchema).toEqual(SCHEMA);
  } finally {
    await client.close();
  }
  await expect(registry.call('contact', { contactMethod: 'phone', email: 'a@b.c' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
  await expect(registry.call('contact', { phone: '1', address: { city: 'P', zip: 1 } })).rejects.toMatchObject({
    code: 'INVALID_ARGUMENTS',
  });
  await expect(registry.call('contact', {})).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
  expect(JSON.parse(await registry.call('contact', { contactMethod: 'email', email: 'a@b.c', address: { city: 'P' } }))).toEqual({
    got: { contactMethod: 'email', email: 'a@b.c', address: { city: 'P' } },
  });
});
