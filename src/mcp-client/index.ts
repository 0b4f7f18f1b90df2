// toolwright/mcp-client: remote MCP servers' tools in the registry (needs @modelcontextprotocol/sdk).
export { McpToolset, IDEMPOTENCY_META } from './toolset';
export type { McpToolsetOptions, StdioToolsetOptions, HttpToolsetOptions, RemoteToolOptions, CredentialResolver } from './toolset-options';
export { RemoteToolError, type RemoteFailure } from './remote-error';
export type {
  RemoteResource,
  RemoteResourceTemplate,
  RemoteResourceContents,
  RemotePrompt,
  RemotePromptRead,
  RemoteFeature,
  FeatureAuthorize,
} from './features';
export { authorizationCode, AuthorizationCodeProvider, MemoryOAuthStore } from './oauth';
export type { AuthorizationCodeOptions, OAuthSession, OAuthStore } from './oauth';
