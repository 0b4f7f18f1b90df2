/**
 * The Tools page's API over HTTP, with the token: what each identity may see, the provider schemas
 * and strict fallbacks, calls through `registry.call` (field errors, approval, the gate), and bad
 * requests answered with a typed error.
 */
import 'reflect-metadata';
import { Tool, ToolRegistry, type ToolInterface } from 'toolwright';
import { createStudio, type Studio } from 'toolwright/studio';
import { createSupportApp } from '../../samples/tools';
import { fixtureRegistry, wipes } from './tools-fixture';

let support: Studio;
let fixtures: Studio;

beforeAll(async () => {
  support = await createStudio(createSupportApp().registry, { userId: 'alice', tenantId: 'acme' });
  fixtures = await createStudio(fixtureRegistry());
});
afterAll(async () => {
  await support?.close();
  await fixtures?.close();
});

async function request(
  studio: Studio,
  path: string,
  options: { method?: string; body?: string; user?: string; tenant?: string } = {},
): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${studio.token}` };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.user !== undefined) headers['x-studio-user'] = encodeURIComponent(options.user);
  if (options.tenant !== undefined) headers['x-studio-tenant'] = encodeURIComponent(options.tenant);
  const res = await fetch(`${studio.origin}${path}`, { method: options.method ?? 'GET', headers, body: options.body });
  return { status: res.status, json: await res.json() };
}

const call = (studio: Studio, name: string, args: unknown, who: { user?: string; tenant?: string } = {}) =>
  request(studio, `/api/tools/${encodeURIComponent(name)}/call`, { method: 'POST', body: JSON.stringify({ args }), ...who });

describe('GET /api/tools', () => {
  test('lists each tool with its input schema, every provider form and the hints', async () => {
    const { status, json } = await request(support, '/api/tools');
    expect(status).toBe(200);
    const refund = json.tools.find((t: { name: string }) => t.name === 'process_refund');
    expect(refund).toMatchObject({
      description: 'Process a refund for an order',
      approval: false,
      annotations: { destructiveHint: true, idempotentHint: true },
      inputSchema: { type: 'object', required: ['reason'] },
    });
    expect(refund.providers.openai.schema.function.parameters.properties.amount_cents).toMatchObject({ type: 'integer', minimum: 1 });
    // Strict OpenAI lists every property as required, the optional ones nullable.
    expect(refund.providers.openaiStrict.schema.function).toMatchObject({ strict: true });
    expect(refund.providers.openaiStrict.schema.function.parameters.required).toEqual(['order_id', 'amount_cents', 'reason']);
    expect(refund.providers.anthropic.schema.input_schema.properties.reason.type).toBe('string');
    expect(refund.providers.anthropicStrict.schema.strict).toBe(true);
    expect(refund.providers.gemini.schema.parameters.properties.amount_cents.type).toBe('integer');
    expect(refund.providers.mcp.schema.inputSchema.properties.reason.type).toBe('string');
    expect(refund.strictFallbacks).toEqual([]);
  });

  test('a strict mode that falls back says which provider and why, and the schema sent is non-strict', async () => {
    const { json } = await request(fixtures, '/api/tools');
    const wipe = json.tools.find((t: { name: string }) => t.name === 'wipe_account');
    expect(wipe.approval).toBe(true);
    expect(wipe.strictFallbacks).toEqual([
      { provider: 'openai', reason: expect.stringContaining('free-form object') },
      { provider: 'anthropic', reason: expect.stringContaining('free-form object') },
    ]);
    expect(wipe.providers.openaiStrict.schema.function.strict).toBe(false);
    expect(wipe.providers.anthropicStrict.schema.strict).toBe(false);
    const plan = json.tools.find((t: { name: string }) => t.name === 'plan_shipment');
    expect(plan.strictFallbacks).toEqual([]);
    expect(plan.providers.openaiStrict.schema.function.strict).toBe(true);
  });

  test('a tool this identity may not see is not listed', async () => {
    const names = async (user: string) => (await request(fixtures, '/api/tools', { user })).json.tools.map((t: { name: string }) => t.name);
    expect(await names('admin')).toEqual(['plan_shipment', 'admin_audit', 'wipe_account']);
    expect(await names('mallory')).toEqual(['plan_shipment', 'wipe_account']);
  });
});

describe('POST /api/tools/:name/call', () => {
  test('runs the tool as the chosen user and tenant and answers its parsed result', async () => {
    const { status, json } = await call(
      support,
      'process_refund',
      { order_id: 'A-100', amount_cents: 500, reason: 'broken' },
      { user: 'alice', tenant: 'acme' },
    );
    expect(status).toBe(200);
    expect(json.result).toMatchObject({ status: 'success', order_id: 'A-100', amount_cents: 500 });
    // Bob of the same tenant does not own A-100: the tool's own scoping answers, as on every surface.
    const bob = await call(support, 'process_refund', { order_id: 'A-100', reason: 'mine' }, { user: 'bob', tenant: 'acme' });
    expect(bob.json.result).toEqual({ status: 'error', message: 'Order not found' });
  });

  test('invalid arguments answer 422 with the field errors, by path', async () => {
    const { status, json } = await call(support, 'process_refund', { amount_cents: 'ten', reason: '' });
    expect(status).toBe(422);
    expect(json.error.code).toBe('INVALID_ARGUMENTS');
    expect(json.error.errors.map((e: { path: string }) => e.path).sort()).toEqual(['amount_cents', 'reason']);
    const nested = await call(fixtures, 'plan_shipment', {
      address: { street: 'Main 1', city: 'X', country: 'UK' },
      items: [{ sku: 'AB', quantity: 1 }],
      speed: 'express',
    });
    expect(nested.status).toBe(422);
    expect([...new Set(nested.json.error.errors.map((e: { path: string }) => e.path))].sort()).toEqual([
      'address.city',
      'address.country',
      'items[0].sku',
    ]);
  });

  test('a tool that needs approval answers APPROVAL_REQUIRED and does not run', async () => {
    const before = wipes.count;
    const { status, json } = await call(fixtures, 'wipe_account', { account: 'acct-1' }, { user: 'admin' });
    expect(status).toBe(409);
    expect(json.error.code).toBe('APPROVAL_REQUIRED');
    expect(wipes.count).toBe(before);
  });

  test('an unknown tool, and one this identity may not see, are both 404 TOOL_NOT_FOUND', async () => {
    const unknown = await call(support, 'no_such_tool', {});
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('TOOL_NOT_FOUND');
    const hidden = await call(fixtures, 'admin_audit', { account: 'a' }, { user: 'mallory' });
    expect(hidden.status).toBe(404);
    expect(hidden.json.error.code).toBe('TOOL_NOT_FOUND');
    expect(hidden.json.error.message).not.toContain('admin_audit".  Available');
    expect(hidden.json.error.message).not.toMatch(/Available tools:.*admin_audit/);
    const allowed = await call(fixtures, 'admin_audit', { account: 'a' }, { user: 'admin' });
    expect(allowed).toEqual({ status: 200, json: { result: { audited: 'a' } } });
  });

  test('malformed bodies get a typed 400, never a 500', async () => {
    const post = (body: string) => request(support, '/api/tools/process_refund/call', { method: 'POST', body });
    expect(await post('{"args": {"reason": ')).toMatchObject({ status: 400, json: { error: { code: 'INVALID_JSON' } } });
    expect(await post('[1,2]')).toMatchObject({ status: 400, json: { error: { code: 'INVALID_REQUEST' } } });
    expect(await post('{"args": "reason=x"}')).toMatchObject({ status: 400, json: { error: { code: 'INVALID_REQUEST' } } });
    expect(await post('{"args": [1]}')).toMatchObject({ status: 400, json: { error: { code: 'INVALID_REQUEST' } } });
    expect(await post('null')).toMatchObject({ status: 400, json: { error: { code: 'INVALID_REQUEST' } } });
    // No body: the tool is called without arguments, and says what it misses.
    const empty = await post('');
    expect(empty.status).toBe(422);
    expect(empty.json.error.errors.map((e: { path: string }) => e.path)).toEqual(['reason']);
  });

  test('prototype keys in the body or in the arguments are refused and pollute nothing', async () => {
    const post = (body: string) => request(support, '/api/tools/process_refund/call', { method: 'POST', body });
    for (const body of [
      '{"__proto__": {"polluted": true}, "args": {"reason": "x"}}',
      '{"args": {"reason": "x", "__proto__": {"polluted": true}}}',
      '{"args": {"reason": "x", "constructor": {"prototype": {"polluted": true}}}}',
    ]) {
      const { status, json } = await post(body);
      expect(status).toBe(400);
      expect(json.error.code).toBe('INVALID_JSON');
    }
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  test('an extra argument is named as the field at fault', async () => {
    const { status, json } = await call(support, 'process_refund', { reason: 'x', amount: 5 });
    expect(status).toBe(422);
    expect(json.error.errors).toEqual([expect.objectContaining({ path: 'amount' })]);
  });

  test('without the token nothing is answered', async () => {
    const res = await fetch(`${support.origin}/api/tools`);
    expect(res.status).toBe(401);
  });
});

describe('a tool that fails', () => {
  class NoInput {}
  @Tool({ name: 'explode', description: 'Throws', input: NoInput })
  class ExplodeTool implements ToolInterface<NoInput> {
    execute(): never {
      throw new Error('secret connection string in here');
    }
  }
  @Tool({ name: 'hang', description: 'Never answers', input: NoInput, timeoutMs: 50 })
  class HangTool implements ToolInterface<NoInput> {
    execute(): Promise<never> {
      return new Promise(() => undefined);
    }
  }

  test('is answered with its typed error (TOOL_FAILED redacted, TOOL_TIMEOUT), not a 500', async () => {
    const reported: unknown[] = [];
    const studio = await createStudio(ToolRegistry.build({ tools: [ExplodeTool, HangTool] }), { onError: (e) => reported.push(e) });
    try {
      const exploded = await call(studio, 'explode', {});
      expect(exploded.status).toBe(502);
      expect(exploded.json.error.code).toBe('TOOL_FAILED');
      // The developer is shown the failure; what the model would be told is redacted, as on every surface.
      expect(exploded.json.error.message).toContain('secret connection string');
      expect(exploded.json.error.modelSees).toMatchObject({ status: 'error', code: 'TOOL_FAILED' });
      expect(JSON.stringify(exploded.json.error.modelSees)).not.toContain('secret');
      const hung = await call(studio, 'hang', {});
      expect(hung.status).toBe(504);
      expect(hung.json.error.code).toBe('TOOL_TIMEOUT');
      expect(reported).toEqual([]);
    } finally {
      await studio.close();
    }
  });
});

describe('huge and deep arguments', () => {
  test('deeply nested arguments get a typed error, not a 500', async () => {
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const { status, json } = await request(support, '/api/tools/process_refund/call', {
      method: 'POST',
      body: `{"args": {"reason": "x", "order_id": ${deep}}}`,
    });
    // The registry's own limit, as on every surface: the arguments as a whole are named.
    expect(status).toBe(422);
    expect(json.error.code).toBe('INVALID_ARGUMENTS');
    expect(json.error.errors).toEqual([expect.objectContaining({ path: '', constraint: 'maxDepth' })]);
  });

  test('a body over the limit is refused with 413', async () => {
    const { status, json } = await request(support, '/api/tools/process_refund/call', {
      method: 'POST',
      body: JSON.stringify({ args: { reason: 'x'.repeat(2 * 1024 * 1024) } }),
    });
    expect(status).toBe(413);
    expect(json.error.code).toBe('PAYLOAD_TOO_LARGE');
  });
});
