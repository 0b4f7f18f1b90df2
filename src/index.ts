/** toolwright's public API: an explicit list. */
import 'reflect-metadata';

// Tools
export { Tool } from './decorators/tool.decorator';
export { Param } from './decorators/param.decorator';
export type { ToolOptions, ParamOptions, ToolAnnotations, ApprovalPolicy, ClassType } from './metadata/types';
export type { ToolInterface, ResolvedTool } from './registry/tool.interface';
export { ToolRegistry } from './registry/tool-registry';
export type { ToolRegistryOptions, CallOptions, RegisteredTool } from './registry/tool-registry';
export type { ContainerLike } from './container/container';
export { typediContainer } from './container/container';
export type { JsonSchema, JsonSchemaType, ToolDefinition } from './schema/json-schema';
export type { ArgumentLimits } from './validation/arguments';

// Session state and memory
export { AgentContext } from './session/agent-context';
export type { AgentContextInit, ToolCallInfo } from './session/agent-context';
export { AgentMemory } from './session/agent-memory';
export type { AgentMemoryInit, MemorySearchResult } from './session/agent-memory';
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
export type { SessionStore } from './stores/store';
export { InMemoryStore } from './stores/in-memory.store';

// Models
export type { Model, ModelRequest, ModelResponse, ModelUsage } from './agent/model';

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
  StoreUnavailableError,
  ModelError,
} from './errors/errors';
export type { FieldError } from './errors/errors';
