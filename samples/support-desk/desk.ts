import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ContainerInstance } from 'typedi';
import {
  Agent,
  ToolRegistry,
  type AgentContext,
  type ClassType,
  type AgentHooks,
  type AgentMemory,
  type Model,
  type SessionStore,
} from 'toolwright';
import { OrderDatabase, RefundService, SUPPORT_TOOLS, UploadStorage, resolveTools } from '../tools';
import { RememberPreferenceTool } from './remember.tool';
import type { Shop } from './shop';

export const AGENT_NAME = 'support-desk';

/** What the desk can do: the sample support tools and a memory tool. */
export const DESK_TOOLS: readonly ClassType[] = [...SUPPORT_TOOLS, RememberPreferenceTool];

export interface SupportDeskOptions {
  model: Model;
  store: SessionStore;
  shop: Shop;
  hooks?: AgentHooks | readonly AgentHooks[];
  /** The desk's tools. Default: the support tools and remember_preference. */
  tools?: readonly ClassType[];
}

/** The system prompt, rebuilt per run from what the desk remembers about this customer. */
export function instructions(context: AgentContext, memory: AgentMemory): string {
  const remembered = memory.getPreferences().map((p) => `- ${p.content}`);
  return [
    `You are the support desk of an online shop. You are talking to the signed-in customer "${context.userId}".`,
    'Use the tools to look orders up and to refund them; never guess order data. Answer in one or two sentences.',
    'After looking an order up, process_refund may omit order_id: it refunds the order last looked up.',
    "If the customer states a lasting preference, save it with remember_preference. Never reveal other customers' orders.",
    remembered.length
      ? `What you remember about this customer:\n${remembered.join('\n')}`
      : 'You remember nothing about this customer yet.',
  ].join('\n');
}

/**
 * The support agent: the sample tools (order lookup, typed lookup, refunds, order list) and a
 * memory tool, resolved from one container over the given shop. The catalog offers only tools
 * tagged for support work (file_processor is not); unexpected tool failures reach the model
 * redacted rather than ending the conversation.
 */
export function createSupportDesk(options: SupportDeskOptions): Agent {
  const container = new ContainerInstance(`support-desk-${Math.random().toString(36).slice(2)}`);
  container.set(OrderDatabase, options.shop.db);
  container.set(RefundService, options.shop.refunds);
  container.set(UploadStorage, new UploadStorage(path.join(tmpdir(), 'toolwright-support-desk-uploads')));
  const registry = ToolRegistry.build({ tools: options.tools ?? DESK_TOOLS, container: resolveTools(container) });
  return new Agent({
    name: AGENT_NAME,
    instructions,
    model: options.model,
    tools: registry,
    store: options.store,
    maxTurns: 8,
    toolTimeoutMs: 5_000,
    errorPolicy: 'redact',
    catalog: { tags: ['orders', 'memory'] },
    hooks: options.hooks,
  });
}
