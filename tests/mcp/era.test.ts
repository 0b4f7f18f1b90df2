/**
 * How serveHttp tells 2026-07-28 requests from 2025 ones (src/mcp/http/era.ts), and how it reads
 * the standard headers: properties over any text, and the cases that must not be confused.
 */
import type { IncomingMessage } from 'node:http';
import fc from 'fast-check';
import { classify, decodeHeaderValue, headerRefusal, type ModernMessage } from '../../src/mcp/http/era';

const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const req = (headers: Record<string, string> = {}, method = 'POST') => ({ method, headers }) as unknown as IncomingMessage;
const b64 = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

describe('decodeHeaderValue', () => {
  it('gives back any text sent in the Base64 form', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (text) => decodeHeaderValue(b64(text)) === text));
  });

  it('gives back any value not in that form as it is', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        fc.pre(!/^=\?base64\?.*\?=$/is.test(text));
        return decodeHeaderValue(text) === text;
      }),
    );
  });

  it('refuses a Base64 form that is malformed or not UTF-8', () => {
    for (const bad of ['=?base64?@@@?=', '=?base64?abc?=', `=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`])
      expect(decodeHeaderValue(bad)).toBeUndefined();
  });
});

describe('classify', () => {
  const body = (method: string, params: object = { _meta: ENVELOPE }, id: number | undefined = 1) => ({
    jsonrpc: '2.0',
    id,
    method,
    params,
  });

  it('leaves every request without a 2026 claim to the 2025 serving: initialize, batches, GET, DELETE, no _meta', () => {
    expect(classify(req(), body('initialize', {}))).toEqual({ era: 'legacy' });
    expect(classify(req(), [body('tools/list', {})])).toEqual({ era: 'legacy' });
    expect(classify(req({}, 'GET'), undefined)).toEqual({ era: 'legacy' });
    expect(classify(req({}, 'DELETE'), undefined)).toEqual({ era: 'legacy' });
    expect(classify(req({ 'mcp-protocol-version': '2025-11-25' }), body('tools/list', {}))).toEqual({ era: 'legacy' });
  });

  it('takes a request whose _meta names a version as 2026, whatever its other keys', () => {
    const message = body('tools/list', { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' } } });
    expect(classify(req({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' }), message)).toMatchObject({
      era: 'modern',
      version: '2026-07-28',
    });
  });

  it('takes no claim from a __proto__ key: a version under it is no claim', () => {
    const params = JSON.parse('{"_meta":{"__proto__":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}') as object;
    expect(classify(req(), body('tools/list', params))).toEqual({ era: 'legacy' });
    expect(classify(req({ 'mcp-protocol-version': '2026-07-28' }), body('tools/list', params))).toMatchObject({
      era: 'refused',
      refusal: { status: 400, code: -32602, id: 1 },
    });
  });

  it('reads headers with spaces and tabs around them, however many', () => {
    const padded = `${' \t'.repeat(5000)}2026-07-28${'\t '.repeat(5000)}`;
    expect(classify(req({ 'mcp-protocol-version': padded }), body('tools/list'))).toMatchObject({ era: 'modern' });
    const message = body('tools/call', { name: 'grant', _meta: ENVELOPE }) as ModernMessage;
    expect(
      headerRefusal(
        req({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': ' tools/call ', 'mcp-name': `${' '.repeat(9000)}x` }),
        message,
      ),
    ).toMatchObject({
      code: -32020,
    });
    expect(
      headerRefusal(req({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': '\tgrant ' }), message),
    ).toBeUndefined();
  });

  it('answers any body it takes as 2026 or refuses with the id it carried, for any method name', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer(), fc.constantFrom('2026-07-28', '2099-01-01', undefined), (method, id, header) => {
        const era = classify(req(header ? { 'mcp-protocol-version': header } : {}), body(method, { _meta: ENVELOPE }, id));
        if (era.era === 'modern') return era.message.method === method;
        return era.era === 'refused' && era.refusal.id === id && era.refusal.status === 400;
      }),
    );
  });
});
