export { createMcpServer, IDENTITY_KEY, mcpStoreKeys } from './mcp-server';
export type { McpIdentity, McpServerOptions } from './mcp-server';
export { serveStdio, serveHttp, tokenAuth, McpServeConfigError } from './serve';
export type { StdioHandle, HttpHandle, HttpServeOptions, McpAuthHook, McpAuthRequest } from './serve';
