export { Agent } from './agent';
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
} from './agent';
export { ToolCatalog } from './catalog';
export type { CatalogOptions, CatalogSelection } from './catalog';
export {
  AgentRunError,
  RetryBudgetExceededError,
  MaxTurnsExceededError,
  ToolCallFailedError,
  RunAbortedError,
  RunNotFoundError,
  RunPausedError,
  ApprovalDecisionError,
  SessionForbiddenError,
} from './errors';
export * from './models';
export type { Model, ModelRequest, ModelResponse, ModelUsage } from './model';
