import { Agent, ToolRegistry, type Model, type SessionStore } from 'toolwright';
import { McpToolset } from 'toolwright/mcp-client';
import { LookupAccountTool } from './accounts.tool';

export interface RemoteDeskOptions {
  model: Model;
  store: SessionStore;
  /** Where server-memory keeps its knowledge graph (a JSONL file). */
  memoryFile: string;
}

export interface RemoteDesk {
  agent: Agent;
  registry: ToolRegistry;
  /** Stops the memory server (the registry's remote connections). */
  close(): Promise<void>;
}

/**
 * The account desk: a local decorated tool (`lookup_account`) and the knowledge graph of
 * `@modelcontextprotocol/server-memory` (from npm, over stdio) as `notes_*` tools. Its delete tools
 * are marked destructive by the server, so a person approves them; an app cannot be talked out of that.
 */
export async function createRemoteDesk(options: RemoteDeskOptions): Promise<RemoteDesk> {
  const notes = McpToolset.stdio({
    name: 'notes',
    // An installed app runs `npx -y @modelcontextprotocol/server-memory`; here the package installed with the repo.
    command: process.execPath,
    args: [require.resolve('@modelcontextprotocol/server-memory/dist/index.js')],
    env: { MEMORY_FILE_PATH: options.memoryFile },
    prefix: 'notes_',
    include: ['create_entities', 'add_observations', 'search_nodes', 'open_nodes', 'delete_entities'],
  });
  const registry = await ToolRegistry.buildAsync({ tools: [LookupAccountTool], mcp: [notes] });
  const agent = new Agent({
    name: 'account-desk',
    instructions: [
      'You help the account team. Look accounts up with lookup_account; never guess account data.',
      'Keep what the team tells you about an account as observations of an entity named after the account (notes_create_entities, notes_add_observations).',
      'Answer questions about accounts from the notes (notes_search_nodes). Answer in one sentence.',
    ].join('\n'),
    model: options.model,
    tools: registry,
    store: options.store,
    maxTurns: 8,
  });
  return { agent, registry, close: () => registry.close() };
}
