/**
 * npm run demo — a support desk over the sample tools and a seeded order database. Each answer is
 * a typed TicketSummary (its reply shown as it arrives); refunds go to a billing sub-agent.
 * State (sessions and the desk's memory of each customer) lives in SQLite at
 * $TOOLWRIGHT_STATE_DIR/state.db (default ./.toolwright/state.db): run it twice and the second
 * run greets alice with what the first one remembered. With OPENAI_BASE_URL / OPENAI_API_KEY or
 * ANTHROPIC_API_KEY set, a real model plays the desk instead of the embedded script.
 */
import './toolwright-alias';
// First, as in every decorator app: services are decorated as their modules load.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { SqliteStore } from 'toolwright/stores';
import { streamConversation } from './conversation';
import { AGENT_NAME, createTicketDesk } from './desk';
import { selectBillingModel, selectModel } from './model';
import { CONVERSATION } from './script';
import { CUSTOMER, seedShop } from './shop';

async function main(): Promise<void> {
  const file = path.join(process.env.TOOLWRIGHT_STATE_DIR ?? './.toolwright', 'state.db');
  const store = new SqliteStore({ path: file });
  const model = selectModel();
  const { desk, close } = await createTicketDesk({
    model,
    billingModel: selectBillingModel(model),
    store,
    shop: seedShop(),
    // The operator's log gets the raw error; the model only ever sees the redacted result.
    hooks: {
      onToolError: ({ name, error, handling }) => {
        if (handling !== 'retry') console.error(`    [log] ${name} ${error.code}: ${error.message}`);
      },
    },
  });
  const sessionId = `desk-${randomUUID().slice(0, 8)}`;
  console.log(`support desk · model ${model.name} · store ${file} · session ${sessionId}\n`);
  try {
    // The desk's text appears as the model writes it (streamed runs; a model without streaming gives it in one piece).
    await streamConversation(desk, sessionId, CONVERSATION, (text) => process.stdout.write(text));
    const memory = await store.loadMemory({ agentName: AGENT_NAME, ...CUSTOMER });
    const remembered = memory?.entries.map((e) => e.content) ?? [];
    console.log(`memory of ${AGENT_NAME} about ${CUSTOMER.userId}: ${remembered.length ? remembered.join('; ') : '(empty)'}`);
    console.log('Run `npm run demo` again: the desk will greet alice with what it remembers.');
  } finally {
    await close();
    await store.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
