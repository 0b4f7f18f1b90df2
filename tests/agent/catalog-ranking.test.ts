import { AgentContext, ToolCatalog, ToolRegistry, type ContainerLike } from '../../src';

const params = { type: 'object' as const, properties: {}, additionalProperties: false };
function tool(name: string, description: string) {
  return class {
    definition() {
      return { name, description, parameters: params };
    }
    execute() {
      return '{}';
    }
  };
}
const container: ContainerLike = { get: (cls) => new cls() };
const registry = ToolRegistry.build({
  container,
  tools: [
    tool('process_refund', 'Process a refund for the order of a customer'),
    tool('track_parcel', 'Track the parcel of an order with the carrier'),
    tool('reset_password', 'Reset the password of an account'),
  ],
});
const context = new AgentContext({ sessionId: 's' });
const names = async (catalog: ToolCatalog, message: string) => (await catalog.select(context, message)).definitions.map((d) => d.name);

describe('catalog ranking', () => {
  it('ignores stop words: a message of only function words matches no tool', async () => {
    expect(await names(new ToolCatalog(registry, { topK: 3 }), 'Could you please do it for me with the one of them?')).toEqual([]);
  });

  it('ranks by the words that carry intent, including prefixes and a typo', async () => {
    const catalog = new ToolCatalog(registry, { topK: 1 });
    expect(await names(catalog, 'I would like to get a refund for my order please')).toEqual(['process_refund']);
    expect(await names(catalog, 'where is my parc')).toEqual(['track_parcel']);
    expect(await names(catalog, 'I forgot my pasword')).toEqual(['reset_password']);
  });

  it('ranks a message once: later turns with the same message reuse the ranking and see the same tools', async () => {
    const catalog = new ToolCatalog(registry, { topK: 2 });
    const first = await names(catalog, 'track my order with the carrier');
    expect(first[0]).toBe('track_parcel');
    expect(await names(catalog, 'track my order with the carrier')).toEqual(first);
  });
});
