import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ContainerInstance } from 'typedi';
import { ToolRegistry, fromTypedi, type ClassType, type ContainerLike } from 'toolwright';
import { FileProcessorTool } from './file-processor.tool';
import { LookupOrderTool } from './lookup-order.tool';
import { OrderLookupTool } from './order-lookup.tool';
import { OrderDatabase } from './orders.db';
import { RefundProcessorTool } from './process-refund.tool';
import { RefundService } from './refund.service';
import { UploadStorage } from './upload-storage.service';
import { UserOrdersTool } from './user-orders.tool';

/** Every sample tool, in the order a support agent would list them. */
export const SUPPORT_TOOLS: readonly ClassType[] = [
  OrderLookupTool,
  UserOrdersTool,
  LookupOrderTool,
  RefundProcessorTool,
  FileProcessorTool,
];

export interface SupportAppOptions {
  /** The data layer; a fresh `OrderDatabase` (seeded with `seedOrders()`) by default. */
  db?: OrderDatabase;
  refunds?: RefundService;
  /** The sandbox `file_processor` writes into; a folder under the OS temp dir by default. */
  uploadDir?: string;
  /** Register anything else (fakes of other services) before the tools are resolved. */
  configure?: (container: ContainerInstance) => void;
}

export interface SupportApp {
  registry: ToolRegistry;
  /** The container the tools were resolved from: get the services a test wants to inspect. */
  container: ContainerInstance;
}

let apps = 0;

/**
 * A registry of the sample tools over their own typedi container, so two apps (two tests) never
 * share a database or a refund ledger. Swap in fakes through the options.
 */
export function createSupportApp(options: SupportAppOptions = {}): SupportApp {
  const container = new ContainerInstance(`toolwright-samples-${++apps}`);
  if (options.db) container.set(OrderDatabase, options.db);
  if (options.refunds) container.set(RefundService, options.refunds);
  container.set(UploadStorage, new UploadStorage(options.uploadDir ?? path.join(tmpdir(), 'toolwright-sample-uploads')));
  options.configure?.(container);
  const registry = ToolRegistry.build({
    tools: SUPPORT_TOOLS,
    container: fromTypedi(container),
    // A 1 MiB upload is ~1.4 M characters of base64: more than the default 1 M argument limit.
    limits: { maxLength: 2_000_000 },
  });
  return { registry, container };
}

/** The tools resolved from a given typedi container (kept for the demo's imports). */
export function resolveTools(container: ContainerInstance): ContainerLike {
  return fromTypedi(container);
}
