/**
 * The studio answers only the developer who started it: loopback only, the token on every API
 * call, its own Host and Origin (a page on another site, or a DNS-rebound name, is refused), and no
 * path from the URL reaches the disk.
 */
import 'reflect-metadata';
import { request } from 'node:http';
import { createStudio, type Studio } from 'toolwright/studio';
import { createSupportApp } from '../../samples/tools';

let studio: Studio;

beforeAll(async () => {
  studio = await createStudio(createSupportApp().registry, { userId: 'alice', tenantId: 'acme' });
});
afterAll(() => studio?.close());

/** A raw request: fetch cannot set Host, and these tests forge it. */
function send(
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: studio.port, path, method, headers: { host: `127.0.0.1:${studio.port}`, ...headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const bearer = () => ({ authorization: `Bearer ${studio.token}` });

test('the printed URL is loopback and carries a random token', async () => {
  expect(studio.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${studio.port}/\\?token=[A-Za-z0-9_-]{32}$`));
  const other = await createStudio(createSupportApp().registry);
  try {
    expect(other.token).not.toBe(studio.token);
  } finally {
    await other.close();
  }
});

test('the API needs the token; a wrong or missing one is 401', async () => {
  expect((await send('/api/info')).status).toBe(401);
  expect((await send('/api/info', { authorization: `Bearer ${studio.token.slice(1)}x` })).status).toBe(401);
  expect((await send('/api/info', { authorization: studio.token })).status).toBe(401);
  const ok = await send('/api/info', bearer());
  expect(ok.status).toBe(200);
  expect(JSON.parse(ok.body)).toMatchObject({ tools: 5, agent: null, identity: { userId: 'alice', tenantId: 'acme' } });
});

test.each([
  ['another Host (DNS rebinding)', { host: 'evil.example' }],
  ['a Host on another port', { host: '127.0.0.1:1' }],
  ['another Origin', { origin: 'https://evil.example' }],
  ['an https Origin of the same host', { origin: 'https://127.0.0.1' }],
  ['a cross-site fetch', { 'sec-fetch-site': 'cross-site' }],
])('%s is refused with 403, page and API alike, token or not', async (_name, forged) => {
  const headers = { ...forged } as Record<string, string>;
  if (headers.host?.startsWith('evil')) headers.host = `evil.example:${studio.port}`;
  for (const path of ['/', '/app.js', '/api/info']) {
    const res = await send(path, { ...bearer(), ...headers });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'FORBIDDEN' } });
  }
});

test('its own origin, by any loopback name, is served', async () => {
  for (const host of [`localhost:${studio.port}`, `127.0.0.1:${studio.port}`, `[::1]:${studio.port}`]) {
    const res = await send('/api/info', { ...bearer(), host, origin: `http://${host}` });
    expect(res.status).toBe(200);
  }
});

test('the page is served with a strict CSP and no referrer; paths outside its files are 404', async () => {
  const page = await send('/');
  expect(page.status).toBe(200);
  expect(page.body).toContain('<title>toolwright studio</title>');
  expect(page.headers['content-security-policy']).toContain("script-src 'self'");
  expect(page.headers['referrer-policy']).toBe('no-referrer');
  for (const path of ['/../package.json', '/%2e%2e/package.json', '/ui/app.js', '/studio.ts', '/app.js/x']) {
    const res = await send(path, bearer());
    expect([404, 401]).toContain(res.status);
    expect(res.body).not.toContain('"name": "toolwright"');
  }
  expect((await send('/api/nothing-here', bearer())).status).toBe(404);
  expect((await send('/app.js', {}, 'DELETE')).status).toBe(404);
});

test('an identity with control characters or past 256 characters is a typed 400', async () => {
  for (const user of ['a%0Ab', 'x'.repeat(257), '%E0%A4%A']) {
    const res = await send('/api/info', { ...bearer(), 'x-studio-user': user });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe('INVALID_ID');
  }
});

test('it will not listen off loopback, nor with a short token', async () => {
  const registry = createSupportApp().registry;
  await expect(createStudio(registry, { host: '0.0.0.0' })).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
  await expect(createStudio(registry, { host: '192.168.1.10' })).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
  await expect(createStudio(registry, { token: 'short' })).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
});
