/**
 * npm run studio — the support desk in the studio (`toolwright studio --module samples/support-desk/studio.ts`):
 * its tools, a chat with it, its stored sessions and its traces. Refunds over 50.00 wait for an
 * approval, decided in the Chat page. The model is the one the environment names (see model.ts), else the
 * embedded script, which streams its words: ask "Where is my order A-100?", then "Please refund 55
 * dollars for that order." as alice of acme (`--user alice --tenant acme`). Sessions live in SQLite at
 * $TOOLWRIGHT_STATE_DIR/state.db (default ./.toolwright/state.db), beside the demo's.
 */
import './toolwright-alias';
// First, as in every decorator app: services are decorated as their modules load.
import 'reflect-metadata';
import * as path from 'node:path';
import { ScriptedModel, type Agent, type Model, type SessionStore } from 'toolwright';
import { SqliteStore } from 'toolwright/stores';
import { ConfirmedRefundTool } from '../chat-desk/refund-confirmation.tool';
import { RefundProcessorTool } from '../tools';
import { createSupportDesk, DESK_TOOLS } from './desk';
import { selectModel } from './model';
import { supportDeskModel } from './script';
import { seedShop, type Shop } from './shop';

export interface StudioDeskOptions {
  store: SessionStore;
  /** Default: the seeded shop. */
  shop?: Shop;
  /** Default: `selectModel()`, with the embedded script streaming word by word. */
  model?: Model;
}

/** The desk whose refunds over 50.00 wait for a person's approval (the chat-desk sample's refund tool). */
export function createStudioDesk(options: StudioDeskOptions): Agent {
  return createSupportDesk({
    model: options.model ?? studioModel(),
    store: options.store,
    shop: options.shop ?? seedShop(),
    tools: [...DESK_TOOLS.filter((tool) => tool !== RefundProcessorTool), ConfirmedRefundTool],
  });
}

/** The environment's model (model.ts); the embedded script writes word by word, so the page shows text arriving. */
function studioModel(): Model {
  const model = selectModel();
  return model instanceof ScriptedModel ? supportDeskModel({ chunkDelayMs: 25 }) : model;
}

/** What `toolwright studio` loads: called once, when the studio starts. */
export function agent(): Agent {
  const file = path.join(process.env.TOOLWRIGHT_STATE_DIR ?? './.toolwright', 'state.db');
  return createStudioDesk({ store: new SqliteStore({ path: file }) });
}
