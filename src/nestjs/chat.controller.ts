import { Controller, Get, Inject, Post, Req, Res, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createChatHandler, type ChatAgent, type ChatHandler, type ChatHandlerOptions } from '../ai-sdk-ui/chat-handler';
import { runInRequestScope } from './nest-container';
import { nodePair, type PlatformRequest } from './platform';

export interface ChatControllerOptions extends Omit<ChatHandlerOptions, 'userId'> {
  /** Route of the endpoint (POST a message or approvals, GET `?id=` restores). */
  path: string;
  /** The token of the Agent provider it serves (`ToolwrightModule.forFeature({ agents })`). */
  agent: string | symbol | Type;
  /**
   * The signed-in user from the request Nest's guards admitted (default: `request.user.id`,
   * what Passport-style guards set). Undefined serves an anonymous chat.
   */
  userId?: ChatHandlerOptions['userId'];
}

/** `request.user.id` (or `.sub`), the principal a Nest guard set on the request. */
export function requestUserId(request: unknown): string | undefined {
  const user = (request as { user?: { id?: unknown; sub?: unknown } } | undefined)?.user;
  const id = user?.id ?? user?.sub;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/**
 * A controller serving the Agent behind `useChat` at `options.path`, on Express or Fastify. Put
 * guards on it with `@UseGuards` (`applyDecorators` on the returned class) or globally: the user
 * they set is the run's user, so `authorize` and approvals see the app's principal. Runs happen in
 * the request's Nest scope: request-scoped services of tools are this request's.
 */
export function createChatController(options: ChatControllerOptions): Type {
  const { path, agent: token, userId, ...handlerOptions } = options;

  @Controller(path)
  class ToolwrightChatController {
    private readonly handler: ChatHandler;

    constructor(
      @Inject(token) agent: ChatAgent,
      private readonly moduleRef: ModuleRef,
    ) {
      this.handler = createChatHandler(agent, {
        ...handlerOptions,
        userId: userId ?? ((info) => requestUserId(info.incoming)),
      });
    }

    @Post()
    post(@Req() req: PlatformRequest, @Res() res: unknown): Promise<void> {
      return this.serve(req, res);
    }

    @Get()
    get(@Req() req: PlatformRequest, @Res() res: unknown): Promise<void> {
      return this.serve(req, res);
    }

    private serve(req: PlatformRequest, res: unknown): Promise<void> {
      const [incoming, outgoing]: [IncomingMessage, ServerResponse] = nodePair(req, res);
      return runInRequestScope(this.moduleRef, req, () => this.handler.node(incoming, outgoing));
    }
  }
  return ToolwrightChatController;
}
