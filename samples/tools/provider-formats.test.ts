import { toAnthropicTool, toGeminiFunctionDeclaration, toMcpTool, toOpenAITool } from 'toolwright/providers';
import { createSupportApp } from './app';

/**
 * Pins what each provider is sent for every sample tool. A change to the schema generator or to
 * a provider format shows up here as a snapshot diff to review (`npx jest -u` to accept it).
 */
describe('provider formats of the sample tools', () => {
  const { registry } = createSupportApp();

  it('has one definition per sample tool', () => {
    expect(registry.names()).toEqual(['order_lookup', 'user_orders', 'lookup_order', 'process_refund', 'file_processor']);
  });

  describe.each(registry.names().map((name) => [name]))('%s', (name) => {
    const definition = registry.get(name).definition();

    it('OpenAI', () => expect(toOpenAITool(definition)).toMatchSnapshot());
    it('OpenAI strict mode', () => expect(toOpenAITool(definition, { strict: true })).toMatchSnapshot());
    it('Anthropic', () => expect(toAnthropicTool(definition)).toMatchSnapshot());
    it('Gemini', () => expect(toGeminiFunctionDeclaration(definition)).toMatchSnapshot());
    it('MCP', () => expect(toMcpTool(definition)).toMatchSnapshot());
  });
});
