import { Module, UseGuards } from '@nestjs/common';
import type { Model } from 'toolwright';
import { createChatController, createMcpController, ToolwrightModule } from 'toolwright/nestjs';
import { LookupOrderTool, OrderAccessService, OrderDatabase, OrderLookupTool, RefundService, UserOrdersTool } from '../tools';
import { ConfirmedRefundTool } from '../chat-desk/refund-confirmation.tool';
import { AGENT_NAME, instructions } from '../support-desk/desk';
import { RememberPreferenceTool } from '../support-desk/remember.tool';
import { CustomerGuard, type RequestUser } from './customer.guard';

/** The token the desk's Agent is injected by. */
export const DESK = Symbol('support-desk');
/** The model the desk runs on (provided by the app module: the embedded script or a real one). */
export const DESK_MODEL = Symbol('desk-model');

/** POST /api/chat: the desk behind `useChat`; the user and the tenant are the guard's. */
export const ChatController = createChatController({
  path: 'api/chat',
  agent: DESK,
  tenantId: (info) => (info.incoming as { user?: RequestUser } | undefined)?.user?.tenantId,
});
UseGuards(CustomerGuard)(ChatController);

/** POST /mcp: the same tools for MCP clients, as the same principal (`request.user`). */
export const McpController = createMcpController({ path: 'mcp' });
UseGuards(CustomerGuard)(McpController);

/**
 * The support desk as a Nest feature module. The tools are the sample tools, unchanged: Nest's
 * injector builds them with the module's services (OrderAccessService over the OrderDatabase, the
 * RefundService), and ToolwrightModule finds them among the providers. The Agent is a provider
 * too, injected into the chat controller by its token.
 */
@Module({
  imports: [
    ToolwrightModule.forFeature({
      agents: [
        {
          provide: DESK,
          inject: [DESK_MODEL],
          useFactory: (model: Model) => ({
            name: AGENT_NAME,
            instructions,
            model,
            maxTurns: 8,
            toolTimeoutMs: 5_000,
            errorPolicy: 'redact' as const,
            catalog: { tags: ['orders', 'memory'] },
          }),
        },
      ],
    }),
  ],
  providers: [
    { provide: OrderDatabase, useFactory: () => new OrderDatabase() },
    RefundService,
    OrderAccessService,
    OrderLookupTool,
    UserOrdersTool,
    LookupOrderTool,
    ConfirmedRefundTool,
    RememberPreferenceTool,
    CustomerGuard,
  ],
  controllers: [ChatController, McpController],
  exports: [RefundService],
})
export class DeskModule {}
