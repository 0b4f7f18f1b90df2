export { createMcpServer, IDENTITY_KEY } from './mcp-server';
export type { McpIdentity, McpServerOptions } from './mcp-server';
export { serveStdio, serveHttp } from './serve';
export type { StdioHandle, HttpHandle, HttpServeOptions, McpAuthHook, McpAuthRequest } from './serve';
