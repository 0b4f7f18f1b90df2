/**
 * The toolwright client driver the conformance suite's client scenarios run:
 * `<command> <server URL>`, the scenario in MCP_CONFORMANCE_SCENARIO. It builds a registry whose
 * only tools come from that server (McpToolset.http) and calls them as an app would.
 */
import 'reflect-metadata';
import { ToolRegistry } from '../../src';
import { McpToolset } from '../../src/mcp-client';

async function main(): Promise<void> {
  const url = process.argv[2];
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const registry = await ToolRegistry.buildAsync({ tools: [], mcp: [McpToolset.http({ name: 'conformance', url, watch: false })] });
  try {
    if (scenario === 'tools_call') console.log(await registry.call('add_numbers', { a: 5, b: 3 }));
    if (scenario === 'elicitation-sep1034-client-defaults') {
      // The person accepts without filling anything in: the form's defaults apply.
      const answer = await registry.call('test_client_elicitation_defaults', {}, undefined, undefined, {
        onElicit: async () => ({ action: 'accept', content: {} }),
      });
      console.log(answer);
    }
    if (scenario === 'sse-retry') console.log(await registry.call('test_reconnection', {}));
  } finally {
    await registry.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
