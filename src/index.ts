/** toolwright's public API: an explicit list. */
import 'reflect-metadata';

// Tools
export { Tool } from './decorators/tool.decorator';
export { Param } from './decorators/param.decorator';
export type { ToolOptions, ParamOptions, ToolAnnotations, ApprovalPolicy, ClassType } from './metadata/types';
export type { ToolInterface, ResolvedTool } from './registry/tool.interface';
export { ToolRegistry } from './registry/tool-registry';
export type { ToolRegistryOptions, CallOptions, RegisteredTool } from './registry/tool-registry';
export type { TracingOptions } from './tracing/options';
export type { AuthorizePolicy } from './registry/policy';
export type { CallCheck } from './registry/tool-registry';
export type { ContainerLike } from './container/container';
export { typediContainer, fromTypedi } from './container/container';
export type { JsonSchema, JsonSchemaType, ToolDefinition } from './metadata/json-schema';
export type { ArgumentLimits } from './validation/arguments';

// Session state and memory
export { AgentContext } from './session/agent-context';
export type { AgentContextInit, ToolCallInfo, ToolProgress } from './session/agent-context';
export { AgentMemory, MemoryNotLoadedError } from './session/agent-memory';
export type { AgentMemoryInit, MemorySearchResult } from './session/agent-memory';
export type { MemoryIndex } from './session/memory-search';
export type { Message, ToolCall } from './session/message';
export type {
  SessionKey,
  MemoryKey,
  SessionSnapshot,
  SessionChanges,
  MemorySnapshot,
  MemoryChanges,
  MemoryEntry,
  MemoryEntryType,
} from './session/snapshots';

// Stores
export type { SessionStore, LoadSessionOptions, StoreChannels } from './stores/store';
export { InMemoryStore } from './stores/in-memory.store';
export { SqliteStore, type SqliteStoreOptions } from './stores/sqlite.store';
export type { SqliteDriverName } from './stores/sqlite/driver';
export { defaultSqliteDriver } from './stores/sqlite/open-driver';
export { RedisStore, type RedisStoreOptions, type RedisClientLike } from './stores/redis.store';
export { PostgresStore, type PostgresStoreOptions, type PgPoolLike } from './stores/postgres.store';

// Models
export type { Model, ModelRequest, ModelResponse, ModelStreamPart, ModelUsage } from './agent/model';
export { ScriptedModel, OpenAIChatModel, AnthropicModel } from './agent/models';
export type {
  ScriptedStep,
  ScriptedStepFn,
  ScriptedToolCall,
  ScriptFn,
  OpenAIChatModelOptions,
  AnthropicModelOptions,
  OpenAIClientLike,
  AnthropicClientLike,
} from './agent/models';

// Agent runner
export { Agent } from './agent/agent';
export type {
  AgentOptions,
  RunOptions,
  RunResult,
  ToolCallRecord,
  PendingApproval,
  ApprovalDecision,
  ErrorBoundary,
  ErrorPolicy,
  AgentHooks,
  ToolCallEvent,
  BeforeToolCallDecision,
  RunStartEvent,
  RunEndEvent,
  ResumeOptions,
  Approver,
  ApprovalRecord,
  StepResult,
  RepairEvent,
  RepairedCall,
} from './agent/types';
export type { AgentEvent, AgentEventType } from './agent/events';
export type { StoredConversation, StoredRun, RunLogEntry, StoredDecision } from './agent/run-state';
export { ToolCatalog } from './agent/catalog';
export type { CatalogOptions, CatalogSelection } from './agent/catalog';
export {
  AgentRunError,
  RetryBudgetExceededError,
  MaxTurnsExceededError,
  ToolCallFailedError,
  RunAbortedError,
  RunNotFoundError,
  RunPausedError,
  ApprovalDecisionError,
  ApprovalAlreadyDecidedError,
  ModelCallFailedError,
  RunClaimedError,
  StepClaimedError,
} from './agent/errors';

// Side effects
export { IdempotencyLedger, IdempotencyConflictError, IdempotencyInProgressError, payloadFingerprint } from './side-effects/idempotency';
export { MemoryIdempotencyClaims } from './side-effects/claims';
export { IdempotencyPayloadError } from './side-effects/canonical-json';
export type { IdempotencyEntry, IdempotencyLedgerOptions, IdempotencyStorage, IdempotentOutcome } from './side-effects/idempotency';
export type { IdempotencyClaim, IdempotencyClaims } from './side-effects/claims';

// Provider tool formats
export { toOpenAITool, toAnthropicTool, toGeminiFunctionDeclaration, toMcpTool, nullsToAbsent } from './schema/providers';
export type { OpenAITool, AnthropicTool, GeminiFunctionDeclaration, GeminiSchema, McpTool } from './schema/providers';
export { OPENAI_STRICT_LIMITS, type StrictOptions } from './schema/providers';

// Errors
export {
  ToolwrightError,
  ToolDefinitionError,
  ToolNotFoundError,
  ToolInputError,
  ToolExecutionError,
  ToolOutputError,
  ToolTimeoutError,
  ToolAbortedError,
  ApprovalRequiredError,
  StoreUnavailableError,
  StoreLimitError,
  StoreCorruptError,
  ModelError,
  ModelRetryError,
  InvalidIdError,
  ToolwrightConfigError,
  encodeToolError,
} from './errors/errors';
export { SessionForbiddenError } from './errors/session-forbidden';
export type { FieldError, ErrorCode } from './errors/errors';
