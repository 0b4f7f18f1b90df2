/**
 * `toolwright/agent`: the runner and every type of its hooks, events, stored runs and catalogs.
 * The root entry point keeps what a user running an agent imports; this subpath adds what an
 * integrator of the runner needs.
 */
export { Agent } from './agent';
export { ToolCatalog } from './catalog';
export { AgentTool, type AgentToolOptions, type ChildAgent } from './agent-tool';
export type { CatalogOptions, CatalogSelection } from './catalog';
export type { AgentEvent, AgentEventType, NestedRun } from './events';
export type { LogLevel, ToolLog } from '../session/tool-log';
export type { StoredConversation, StoredRun, RunLogEntry, StoredDecision } from './run-state';
export type {
  AgentOptions,
  RunOptions,
  RunResult,
  ToolCallRecord,
  PendingApproval,
  PendingInput,
  InputDecision,
  ResumeDecision,
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
  HandoffTarget,
} from './types';
