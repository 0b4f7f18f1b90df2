import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ContainerInstance } from 'typedi';
import {
  Agent,
  ToolRegistry,
  type AgentContext,
  type ClassType,
  type ContainerLike,
  type AgentHooks,
  type AgentMemory,
  type Model,
  type SessionStore,
} from 'toolwright';
import { OrderDatabase, RefundProcessorTool, RefundService, SUPPORT_TOOLS, UploadStorage, resolveTools } from '../tools';
import { BillingRequest, createBillingAgent, type RefundReceipt } from './billing';
import { RememberPreferenceTool } from './remember.tool';
import type { Shop } from './shop';
import { TicketSummary } from './ticket';

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
  const registry = ToolRegistry.build({ tools: options.tools ?? DESK_TOOLS, container: shopContainer(options.shop) });
  return new Agent({ ...deskSettings(options), instructions, tools: registry });
}

/** The desk with its billing sub-agent: close it (its registry) when done. */
export interface TicketDesk {
  desk: Agent<TicketSummary>;
  billing: Agent<RefundReceipt>;
  close: () => Promise<void>;
}

/**
 * The desk `npm run demo` runs: every answer is a typed TicketSummary (`output`), and refunds go to
 * a billing sub-agent through `billing.asTool(...)` (its own model, instructions and tool, as the
 * desk's customer). The other tools are the desk's own, as in `createSupportDesk`.
 */
export async function createTicketDesk(options: SupportDeskOptions & { billingModel?: Model }): Promise<TicketDesk> {
  const container = shopContainer(options.shop);
  const billing = createBillingAgent({ model: options.billingModel ?? options.model, store: options.store, container });
  const registry = await ToolRegistry.buildAsync({
    tools: (options.tools ?? DESK_TOOLS).filter((tool) => tool !== RefundProcessorTool),
    container,
    sources: [
      billing.asTool({
        name: 'billing',
        description: 'Ask the billing desk to refund an order: give order_id, amount_cents and the reason. Answers with a receipt.',
        input: BillingRequest,
        tags: ['orders'],
      }),
    ],
  });
  const desk = new Agent({ ...deskSettings(options), instructions: ticketInstructions, tools: registry, output: TicketSummary });
  return { desk, billing, close: () => registry.close() };
}

/** The ticket desk's system prompt: the desk's, with billing and the summary in place of process_refund. */
export function ticketInstructions(context: AgentContext, memory: AgentMemory): string {
  return instructions(context, memory).replace(
    'After looking an order up, process_refund may omit order_id: it refunds the order last looked up.',
    'Refunds go through the billing tool (order_id, amount_cents, reason). Answer each message with a ticket summary: ' +
      'the reply to the customer, its topic, the order it was about and the refund made, if any.',
  );
}

/** The shop's services in a container of the desk's own (tests and demo sessions never share a ledger). */
function shopContainer(shop: Shop): ContainerLike {
  const container = new ContainerInstance(`support-desk-${Math.random().toString(36).slice(2)}`);
  container.set(OrderDatabase, shop.db);
  container.set(RefundService, shop.refunds);
  container.set(UploadStorage, new UploadStorage(path.join(tmpdir(), 'toolwright-support-desk-uploads')));
  return resolveTools(container);
}

function deskSettings(options: SupportDeskOptions) {
  return {
    name: AGENT_NAME,
    model: options.model,
    store: options.store,
    maxTurns: 8,
    toolTimeoutMs: 5_000,
    errorPolicy: 'redact' as const,
    catalog: { tags: ['orders', 'memory'] },
    hooks: options.hooks,
  };
}
