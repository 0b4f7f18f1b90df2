/**
 * The toolwright client driver the conformance suite's client scenarios run:
 * `<command> <server URL>`, the scenario in MCP_CONFORMANCE_SCENARIO. It builds a registry whose
 * only tools come from that server (McpToolset.http) and calls them as an app would.
 */
import 'reflect-metadata';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { ToolRegistry } from '../../src';
import { authorizationCode, McpToolset } from '../../src/mcp-client';

/**
 * The person at the browser, headless: the suite's authorization server consents at once and
 * redirects to the callback with the code; the whole callback URL goes back (its state is checked).
 */
async function consent(authorizationUrl: URL): Promise<URL> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (location === null) throw new Error(`the authorization server answered ${response.status} without a redirect`);
  return new URL(location, authorizationUrl);
}

async function main(): Promise<void> {
  const url = process.argv[2];
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as { client_id?: string; client_secret?: string };
  // OAuth client credentials (the SDK's provider) for those scenarios; the authorization code flow for the other auth ones.
  const oauth = scenario.startsWith('auth/client-credentials')
    ? {
        identity: () => 'conformance',
        provider: () => new ClientCredentialsProvider({ clientId: context.client_id!, clientSecret: context.client_secret! }),
      }
    : scenario.startsWith('auth/')
      ? authorizationCode({
          owner: () => 'conformance',
          redirectUrl: 'http://localhost:3000/callback',
          clientName: 'toolwright-conformance',
          redirect: consent,
          // Used as the client ID where the server takes client ID metadata documents (SEP-991), else it registers.
          clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
          ...(context.client_id && { client: { client_id: context.client_id, client_secret: context.client_secret } }),
        })
      : undefined;
  const registry = await ToolRegistry.buildAsync({ tools: [], mcp: [McpToolset.http({ name: 'conformance', url, watch: false, oauth })] });
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
    // An auth scenario's tools are called as an app would (the token is on every request).
    if (scenario.startsWith('auth/')) for (const name of registry.names()) console.log(await registry.call(name, {}).catch(String));
  } finally {
    await registry.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
