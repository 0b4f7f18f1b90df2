/**
 * toolwright's front door, an explicit list: what a user writing tools or running an agent imports.
 * What only an integrator needs lives on subpaths: `toolwright/stores` (snapshot and change types,
 * channels, claims, client types), `toolwright/models` (the Model interface's request and response
 * types), `toolwright/providers` (provider tool formats), `toolwright/agent` (hook, event and
 * stored-run types), `toolwright/mcp`, `toolwright/ai-sdk-ui`, `toolwright/adapters/*`.
 */
import 'reflect-metadata';

// Tools and the registry
export { Tool } from './decorators/tool.decorator';
export { Param } from './decorators/param.decorator';
export type {
  ToolOptions,
  ParamOptions,
  ToolAnnotations,
  ApprovalPolicy,
  ClassType,
  RateLimit,
  TaskOptions,
  TaskSupport,
} from './metadata/types';
export type { RateCounters, RateHit } from './side-effects/rate-counters';
export type { ToolInterface, ResolvedTool } from './registry/tool.interface';
export { ToolContent } from './content/tool-content';
export { isTool, toolOptionsOf } from './metadata/tool-info';

// Resources and prompts (served over MCP, behind the tools' gate)
export { Resource, ResourceTemplate } from './decorators/resource.decorator';
export { Prompt } from './decorators/prompt.decorator';
export type { ResourceOptions, ResourceTemplateOptions, PromptOptions } from './metadata/feature-types';
export type { ResourceInterface, PromptInterface, PromptMessage, PromptAnswer, ResourceAnswer } from './registry/feature.interface';
export type {
  RegisteredResource,
  RegisteredPrompt,
  PromptArgument,
  ResourceRead,
  PromptRead,
  CompletionRef,
  Completion,
} from './registry/registered-feature';
export { ToolRegistry } from './registry/tool-registry';
export type { ToolRegistryOptions, CallOptions, RegisteredTool, CallCheck, FeatureCallOptions } from './registry/tool-registry';
export type { AuthorizePolicy, Authorizable } from './registry/policy';
export type { TracingOptions } from './tracing/options';
export type { ContainerLike } from './container/container';
export { typediContainer, fromTypedi } from './container/container';
export type { JsonSchema, ToolDefinition } from './metadata/json-schema';

// Session state and memory
export { AgentContext } from './session/agent-context';
export type { AgentContextInit, ToolCallInfo, ToolProgress } from './session/agent-context';
export type {
  ElicitPort,
  ElicitResult,
  InputAnswer,
  InputClass,
  InputOptions,
  InputRequest,
  InputSink,
  RequestedSchema,
  Root,
  RootsSink,
  SampleContent,
  SampleMessage,
  SampleOptions,
  SampleRequest,
  SampleResult,
  SampleSink,
  UrlElicitResult,
} from './session/elicitation';
export { AgentMemory } from './session/agent-memory';
export type { AgentMemoryInit, MemorySearchResult } from './session/agent-memory';
export type { Message, ToolCall } from './session/message';

// Stores
export type { SessionStore } from './stores/store';
export { InMemoryStore } from './stores/in-memory.store';
export { SqliteStore, type SqliteStoreOptions } from './stores/sqlite.store';
export { RedisStore, type RedisStoreOptions } from './stores/redis.store';
export { PostgresStore, type PostgresStoreOptions } from './stores/postgres.store';

// Models
export type { Model } from './agent/model';
export { ScriptedModel, OpenAIChatModel, AnthropicModel } from './agent/models';
export type { ScriptedStep, OpenAIChatModelOptions, AnthropicModelOptions } from './agent/models';

// The agent runner
export { Agent } from './agent/agent';
export type { AgentTool, AgentToolOptions } from './agent/agent-tool';
export type {
  AgentOptions,
  RunOptions,
  ResumeOptions,
  RunResult,
  ToolCallRecord,
  PendingApproval,
  PendingInput,
  InputDecision,
  ResumeDecision,
  ApprovalDecision,
  ErrorPolicy,
  AgentHooks,
  HandoffTarget,
} from './agent/types';
export type { AgentEvent, NestedRun } from './agent/events';
export { ToolCatalog, type CatalogOptions } from './agent/catalog';

// Side effects
export { IdempotencyLedger, type IdempotencyLedgerOptions, type IdempotentOutcome, payloadFingerprint } from './side-effects/idempotency';

// Errors
export { ResourceNotFoundError, PromptNotFoundError } from './errors/feature-errors';
export { RateLimitedError } from './errors/rate-limited-error';
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
export type { FieldError, ErrorCode } from './errors/errors';
export { SessionForbiddenError } from './errors/session-forbidden';
export { InputUnavailableError, InvalidInputError, InvalidRequestStateError } from './errors/input-errors';
export { MemoryNotLoadedError } from './session/agent-memory';
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
  ChildRunPausedError,
} from './agent/errors';
export { IdempotencyConflictError, IdempotencyInProgressError } from './side-effects/idempotency';
export { IdempotencyPayloadError } from './side-effects/canonical-json';
