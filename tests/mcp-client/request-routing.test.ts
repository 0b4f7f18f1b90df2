/**
 * A server's elicitation and sampling requests reach the call that caused them, not the latest call
 * on the connection: two calls run at once on one identity's connection to server-everything.
 */
import { ToolRegistry, type InputAnswer, type InputRequest } from '../../src';
import { McpToolset } from '../../src/mcp-client';
import { SERVER, startEverythingHttp, type HttpServer } from '../support/remote-servers';

let http: HttpServer;
beforeAll(async () => {
  http = await startEverythingHttp();
}, 30_000);
afterAll(() => http?.stop());

/** Resolves once `count` parties have arrived (or after 10 s, so that a wrong route fails the test instead of hanging it). */
function barrier(count: number): () => Promise<void> {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const timer = setTimeout(open, 10_000);
  return () => {
    if (++arrived === count) {
      clearTimeout(timer);
      open();
    }
    return opened;
  };
}

describe('over Streamable HTTP (the stream a request arrives on names its call)', () => {
  let registry: ToolRegistry;
  beforeAll(async () => {
    registry = await ToolRegistry.buildAsync({ tools: [], mcp: [McpToolset.http({ name: 'everything', url: http.url, prefix: 'ev_' })] });
  }, 30_000);
  afterAll(() => registry.close());

  it("answers each call's elicitation from that call's own surface while both wait", async () => {
    const bothAsked = barrier(2);
    const asked: string[] = [];
    const answering =
      (who: string) =>
      async (request: InputRequest): Promise<InputAnswer> => {
        asked.push(who);
        expect(request.mode).toBe('form');
        await bothAsked();
        return { action: 'accept', content: { name: who, check: true, email: `${who.split(' ')[0].toLowerCase()}@example.com` } };
      };
    const [ada, grace] = await Promise.all([
      registry.call('ev_trigger-elicitation-request', {}, undefined, undefined, { onElicit: answering('Ada Lovelace') }),
      registry.call('ev_trigger-elicitation-request', {}, undefined, undefined, { onElicit: answering('Grace Hopper') }),
    ]);
    expect(asked.sort()).toEqual(['Ada Lovelace', 'Grace Hopper']);
    expect(ada).toContain('Ada Lovelace');
    expect(ada).not.toContain('Grace Hopper');
    expect(grace).toContain('Grace Hopper');
    expect(grace).not.toContain('Ada Lovelace');
    expect(registry.describe('ev_trigger-elicitation-request').origin?.source).toBe('everything');
  }, 30_000);

  it("answers each call's sampling request from that call's own model", async () => {
    const bothAsked = barrier(2);
    const model = (who: string) => async () => {
      await bothAsked();
      return { text: `${who} says hi`, content: [{ type: 'text' as const, text: `${who} says hi` }], model: who, stopReason: 'endTurn' };
    };
    const [first, second] = await Promise.all([
      registry.call('ev_trigger-sampling-request', { prompt: 'one', maxTokens: 20 }, undefined, undefined, { onSample: model('first') }),
      registry.call('ev_trigger-sampling-request', { prompt: 'two', maxTokens: 20 }, undefined, undefined, { onSample: model('second') }),
    ]);
    expect(first).toContain('first says hi');
    expect(first).not.toContain('second says hi');
    expect(second).toContain('second says hi');
    expect(second).not.toContain('first says hi');
  }, 30_000);
});

describe('over stdio (nothing names the call)', () => {
  let registry: ToolRegistry;
  beforeAll(async () => {
    registry = await ToolRegistry.buildAsync({
      tools: [],
      mcp: [McpToolset.stdio({ name: 'everything', command: process.execPath, args: [SERVER.everything, 'stdio'], prefix: 'ev_' })],
    });
  }, 30_000);
  afterAll(() => registry.close());

  it('gives a request to the only call running, and refuses one it cannot attribute rather than guess', async () => {
    let askedFirst!: () => void;
    const firstAsked = new Promise<void>((resolve) => (askedFirst = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const firstSurface = jest.fn(async (): Promise<InputAnswer> => {
      askedFirst();
      await released;
      return { action: 'accept', content: { name: 'Ada Lovelace', check: true, email: 'ada@example.com' } };
    });
    const first = registry.call('ev_trigger-elicitation-request', {}, undefined, undefined, { onElicit: firstSurface });
    await firstAsked;
    // A second call's request arrives while two calls run: neither surface is asked.
    const secondSurface = jest.fn(async (): Promise<InputAnswer> => ({ action: 'accept', content: { name: 'Grace Hopper' } }));
    const second = await registry
      .call('ev_trigger-elicitation-request', {}, undefined, undefined, { onElicit: secondSurface })
      .catch((error: unknown) => error);
    release();
    expect(await first).toContain('Ada Lovelace');
    expect(firstSurface).toHaveBeenCalledTimes(1);
    expect(secondSurface).not.toHaveBeenCalled();
    expect(second).toMatchObject({ code: 'TOOL_FAILED', message: expect.stringMatching(/cannot tell whose/) });
  }, 30_000);
});
