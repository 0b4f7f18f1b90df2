/** A small Nest app for the nestjs tests: tools as providers, a guard setting request.user, both endpoints. */
import {
  CanActivate,
  ExecutionContext,
  Inject,
  Injectable,
  Module,
  Scope,
  UnauthorizedException,
  UseGuards,
  type Type,
} from '@nestjs/common';
import { REQUEST } from '@nestjs/core';
import { IsString } from 'class-validator';
import { AgentContext, Param, type Authorizable, ScriptedModel, Tool, type ScriptedStep, type ToolInterface } from 'toolwright';
import { createChatController, createMcpController, ToolwrightModule, type StoreConfig } from 'toolwright/nestjs';
import type { ModelRequest } from 'toolwright/models';

@Injectable()
export class OrdersService {
  status(orderId: string): string {
    return orderId === 'A-1' ? 'shipped' : 'unknown';
  }
}

export class OrderInput {
  @Param({ description: 'The order id' })
  @IsString()
  order_id!: string;
}

@Tool({ name: 'lookup_order', description: 'Look up an order', input: OrderInput })
@Injectable()
export class LookupOrderTool implements ToolInterface<OrderInput> {
  constructor(
    private readonly orders: OrdersService,
    @Inject('AUDIT_LOG') private readonly audit: string[],
  ) {}
  async execute(args: OrderInput, context: AgentContext) {
    this.audit.push(`${context.userId ?? '?'} looked up ${args.order_id}`);
    return { order_id: args.order_id, status: this.orders.status(args.order_id) };
  }
}

/** Request-scoped: one per HTTP request, reading that request. */
@Injectable({ scope: Scope.REQUEST })
export class RequestTrace {
  static built = 0;
  constructor(@Inject(REQUEST) private readonly request: { headers: Record<string, string | undefined> }) {
    RequestTrace.built++;
  }
  get id(): string {
    return this.request.headers['x-trace'] ?? 'none';
  }
}

export class NoInput {}

@Tool({ name: 'trace', description: 'The request trace id', input: NoInput })
@Injectable()
export class TraceTool implements ToolInterface<NoInput> {
  constructor(private readonly trace: RequestTrace) {}
  async execute() {
    return { trace: this.trace.id };
  }
}

export const refunds: string[] = [];

@Tool({ name: 'process_refund', description: 'Refund an order', input: OrderInput, approval: true })
@Injectable()
export class RefundTool implements ToolInterface<OrderInput> {
  async execute(args: OrderInput, context: AgentContext) {
    refunds.push(`${args.order_id} for ${context.userId}`);
    return { refunded: args.order_id };
  }
}

/** `Authorization: Bearer <user>` sets request.user; anything else is refused (401). */
@Injectable()
export class BearerGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined>; user?: unknown }>();
    const match = /^Bearer (\w+)$/.exec(request.headers.authorization ?? '');
    if (!match) throw new UnauthorizedException();
    request.user = { id: match[1] };
    return true;
  }
}

/** Asks for a refund of A-1, then answers with the last tool result. */
export function deskModel(): ScriptedModel {
  return new ScriptedModel((request: ModelRequest): ScriptedStep => {
    const last = request.messages[request.messages.length - 1];
    if (last?.role === 'tool') return { text: `Result: ${last.content}` };
    return { toolCalls: [{ id: `pay-${request.messages.length}`, name: 'process_refund', arguments: { order_id: 'A-1' } }] };
  });
}

export const ChatController = createChatController({ path: 'api/chat', agent: 'DESK' });
UseGuards(BearerGuard)(ChatController);
export const McpController = createMcpController({ path: 'mcp' });
UseGuards(BearerGuard)(McpController);

@Module({
  imports: [ToolwrightModule.forFeature({ agents: [{ provide: 'DESK', useFactory: () => ({ name: 'desk', model: deskModel() }) }] })],
  providers: [
    OrdersService,
    RequestTrace,
    LookupOrderTool,
    TraceTool,
    RefundTool,
    BearerGuard,
    { provide: 'AUDIT_LOG', useFactory: () => [] },
  ],
  controllers: [ChatController, McpController],
})
export class DeskModule {}

/** The root module: the store given, and carol may not refund. */
export function appModule(store: StoreConfig): Type {
  @Module({
    imports: [
      ToolwrightModule.forRoot({
        store,
        authorize: (tool: Authorizable, context: AgentContext) => !(tool.name === 'process_refund' && context.userId === 'carol'),
      }),
      DeskModule,
    ],
  })
  class AppModule {}
  return AppModule;
}
