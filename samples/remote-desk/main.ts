/**
 * npm run sample:remote — an account desk whose agent uses a local decorated tool
 * (`lookup_account`) and the tools of a remote MCP server from npm
 * (`@modelcontextprotocol/server-memory`, over stdio) in one registry: it looks an account up,
 * keeps a note in the server's knowledge graph, answers from it, and deletes it once the account
 * manager approves (the server marks the delete destructive). With OPENAI_BASE_URL / OPENAI_API_KEY
 * or ANTHROPIC_API_KEY set, a real model plays the desk instead of the embedded script.
 */
import '../support-desk/toolwright-alias';
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryStore } from 'toolwright';
import { runConversation } from './conversation';
import { createRemoteDesk } from './desk';
import { selectModel } from './model';
import { CONVERSATION } from './script';

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'toolwright-remote-desk-'));
  const model = selectModel();
  const desk = await createRemoteDesk({ model, store: new InMemoryStore(), memoryFile: join(dir, 'memory.jsonl') });
  console.log(`account desk · model ${model.name} · tools ${desk.registry.names().join(', ')}\n`);
  try {
    // The account manager approves the delete (a real app asks the person: the chat, a CLI prompt).
    await runConversation(
      desk,
      `remote-desk-${process.pid}`,
      CONVERSATION,
      () => true,
      (line) => console.log(line),
    );
  } finally {
    await desk.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
