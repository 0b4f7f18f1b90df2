/**
 * `toolwright/nestjs`: tools as Nest providers, one ToolRegistry per app, Agents as injectable
 * providers, and the MCP and useChat endpoints as controllers (Express or Fastify).
 * Needs `@nestjs/common` and `@nestjs/core` (11 or 12); loaded only from this subpath.
 */
export { ToolwrightModule, ToolwrightHost, TOOLWRIGHT_STORE, TOOLWRIGHT_OPTIONS } from './toolwright.module';
export type {
  ToolwrightModuleOptions,
  ToolwrightModuleAsyncOptions,
  ToolwrightFeature,
  AgentProvider,
  StoreConfig,
} from './toolwright.module';
export { fromNest, runInRequestScope, NEST_ADVICE } from './nest-container';
export { createChatController, requestUserId } from './chat.controller';
export type { ChatControllerOptions } from './chat.controller';
export { createMcpController } from './mcp.controller';
export type { McpControllerOptions } from './mcp.controller';
export { isTool, toolOptionsOf } from '../metadata/tool-info';
