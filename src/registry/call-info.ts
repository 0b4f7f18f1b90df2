import type { AgentContext, ToolCallInfo } from '../session/agent-context';
import type { CallOptions } from './call-options';
import { Cancellation, type CancelSource } from './cancellation';
import { idempotencyKey } from './idempotency-key';
import { elicitPort } from './elicit';
import { logBudget } from './log-budget';

/** What the tool of this call sees on `context.toolCall`, for every execution mode. */
export function callInfo(
  context: AgentContext,
  name: string,
  options: CallOptions | undefined,
  cancel: CancelSource | undefined,
): ToolCallInfo {
  const toolCallId = options?.toolCallId ?? 'direct';
  const onLog = options?.onLog && logBudget(options.onLog);
  const info = new CallInfo(toolCallId, name, options?.onProgress, onLog, context, options?.logicalCallId ?? toolCallId, cancel);
  if (options?.onElicit) info.elicit = elicitPort(options.onElicit);
  if (options?.onSample) info.onSample = options.onSample;
  if (options?.onRoots) info.onRoots = options.onRoots;
  if (options?.onUsage) info.onUsage = options.onUsage;
  if (options?.childResume) info.childResume = options.childResume;
  if (options?.onChildEvent) info.onChildEvent = options.onChildEvent;
  return info;
}

/**
 * A class, not an object literal with getters: V8 gives every such literal its own hidden class;
 * here the getters are shared.
 */
class CallInfo implements ToolCallInfo {
  private key?: string;
  elicit?: ToolCallInfo['elicit'] = undefined;
  onSample?: ToolCallInfo['onSample'] = undefined;
  onRoots?: ToolCallInfo['onRoots'] = undefined;
  onUsage?: ToolCallInfo['onUsage'] = undefined;
  childResume?: ToolCallInfo['childResume'] = undefined;
  onChildEvent?: ToolCallInfo['onChildEvent'] = undefined;

  constructor(
    readonly id: string,
    readonly name: string,
    readonly onProgress: ToolCallInfo['onProgress'],
    readonly onLog: ToolCallInfo['onLog'],
    private readonly context: AgentContext,
    private readonly logicalCallId: string,
    private readonly cancel: CancelSource | undefined,
  ) {}

  /** A run's Cancellation creates its AbortSignal only here, on the tool's first read (most tools never ask). */
  get signal(): AbortSignal | undefined {
    const cancel = this.cancel;
    return cancel instanceof Cancellation ? cancel.signal : cancel;
  }

  /** Hashed on first read (most tools never ask). */
  get idempotencyKey(): string {
    return (this.key ??= idempotencyKey(this.context, this.logicalCallId));
  }
}
