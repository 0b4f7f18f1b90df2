import { Controller, Delete, Get, HttpCode, Inject, Post, Req, Res, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { IncomingMessage } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { createMcpServer, IDENTITY_KEY, type McpIdentity, type McpServerOptions } from '../mcp/mcp-server';
import { ToolRegistry } from '../registry/tool-registry';
import { requestUserId } from './chat.controller';
import { runInRequestScope } from './nest-container';
import { nodePair, type PlatformRequest } from './platform';
import { ToolwrightHost } from './toolwright.module';

export interface McpControllerOptions extends Omit<McpServerOptions, 'store' | 'identity'> {
  /** Route of the MCP endpoint (Streamable HTTP). */
  path: string;
  /**
   * The caller, from the request Nest's guards admitted. Default: `request.user` (`id` or `sub`,
   * and `tenantId`); a request with no user is served as `anonymous`. Refuse callers with a guard.
   */
  identity?: (request: PlatformRequest) => McpIdentity | undefined;
}

function defaultIdentity(request: PlatformRequest): McpIdentity | undefined {
  const userId = requestUserId(request);
  if (userId === undefined) return undefined;
  const tenant = (request.user as { tenantId?: unknown }).tenantId;
  return typeof tenant === 'string' ? { userId, tenantId: tenant } : { userId };
}

/**
 * A controller serving the app's ToolRegistry over MCP Streamable HTTP at `options.path`, stateless:
 * every POST is answered by a fresh MCP server (JSON responses), so any instance behind a load
 * balancer serves any request. The principal is the request user a Nest guard set, passed to
 * `authorize` as the MCP identity. Calls run in the request's Nest scope. Approvals an MCP client
 * cannot answer in one request come back as APPROVAL_REQUIRED (as with `serveHttp({ stateless })`).
 */
export function createMcpController(options: McpControllerOptions): Type {
  const { path, identity = defaultIdentity, ...serverOptions } = options;

  @Controller(path)
  class ToolwrightMcpController {
    constructor(
      @Inject(ToolRegistry) private readonly registry: ToolRegistry,
      private readonly host: ToolwrightHost,
      private readonly moduleRef: ModuleRef,
    ) {}

    @Post()
    async post(@Req() req: PlatformRequest, @Res() res: unknown): Promise<void> {
      const who = identity(req);
      const [incoming, outgoing] = nodePair(req, res);
      if (who)
        (incoming as IncomingMessage & { auth?: AuthInfo }).auth = {
          token: '',
          clientId: who.userId,
          scopes: [],
          extra: { [IDENTITY_KEY]: who },
        };
      const server = createMcpServer(this.registry, { ...serverOptions, store: this.host.store });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        await runInRequestScope(this.moduleRef, req, () =>
          transport.handleRequest(incoming, outgoing, req.body ?? (incoming as PlatformRequest).body),
        );
      } finally {
        await server.close();
      }
    }

    /** No server-to-client stream and no session to end on a stateless endpoint. */
    @Get()
    @HttpCode(405)
    get(): { error: string } {
      return { error: 'Method not allowed: this MCP endpoint is stateless (POST only).' };
    }

    @Delete()
    @HttpCode(405)
    delete(): { error: string } {
      return this.get();
    }
  }
  return ToolwrightMcpController;
}
