/**
 * Tools that report progress and wait on their AbortSignal, for the progress and cancellation
 * tests (in process, and in the stdio worker). What each waiting tool saw is kept in `observed`,
 * which the `observed` tool returns, so a test can ask a server process what its tools saw.
 */
import 'reflect-metadata';
import { IsArray, IsInt, IsNumber, IsOptional, IsString, Min } from 'class-validator';
import { Param, Tool, ToolRegistry, type AgentContext, type ToolInterface } from '../../src';

export interface Observation {
  phase: 'started' | 'ended';
  label: string | undefined;
  tool: string;
  callId: string | undefined;
  /** The tool got an AbortSignal at all. */
  hadSignal: boolean;
  /** It fired, and the tool stopped waiting because of it. */
  aborted: boolean;
  reason: string;
}

export const observed: Observation[] = [];

export class StepsInput {
  @Param({ description: 'How many steps to report' })
  @IsInt()
  @Min(0)
  steps!: number;
}

/** Reports steps 1..n of n, a stale value after step 2 (MCP drops it), then answers. */
@Tool({ name: 'count', description: 'Counts steps, reporting each.', input: StepsInput })
export class CountTool implements ToolInterface<StepsInput> {
  async execute({ steps }: StepsInput, context: AgentContext): Promise<object> {
    for (let i = 1; i <= steps; i++) {
      context.reportProgress(i, steps, `step ${i} of ${steps}`);
      if (i === 2) context.reportProgress(1, steps, 'stale');
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { done: steps };
  }
}

export class ReportsInput {
  @Param({ description: 'Progress values to report, in order (any numbers)' })
  @IsArray()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { each: true })
  values!: number[];

  @Param({ description: 'Total to report with each' })
  @IsOptional()
  @IsNumber()
  total?: number;
}

/** Reports exactly the values it is given (for the monotonicity property). */
@Tool({ name: 'reports', description: 'Reports the given progress values.', input: ReportsInput })
export class ReportsTool implements ToolInterface<ReportsInput> {
  execute({ values, total }: ReportsInput, context: AgentContext): object {
    values.forEach((value, i) => context.reportProgress(value, total, `#${i}`));
    return { reported: values.length };
  }
}

export class WaitInput {
  @Param({ description: 'A label' })
  @IsOptional()
  @IsString()
  label?: string;
}

/** Reports that it started, then waits for its AbortSignal; records what it saw. */
async function waitForAbort(tool: string, { label }: WaitInput, context: AgentContext): Promise<object> {
  const signal = context.signal;
  const seen = (phase: Observation['phase']): Observation => ({
    phase,
    label,
    tool,
    callId: context.toolCall?.id,
    hadSignal: signal !== undefined,
    aborted: signal?.aborted ?? false,
    reason: signal?.aborted ? String(signal.reason) : '',
  });
  observed.push(seen('started'));
  context.reportProgress(1, undefined, 'waiting for cancellation');
  if (signal) {
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }
  observed.push(seen('ended'));
  return { waited: signal !== undefined };
}

/** No timeout: the registry's fast signal path (the caller's signal reaches the tool as is). */
@Tool({ name: 'wait', description: 'Waits until cancelled.', input: WaitInput })
export class WaitTool implements ToolInterface<WaitInput> {
  execute(input: WaitInput, context: AgentContext): Promise<object> {
    return waitForAbort('wait', input, context);
  }
}

/** A timeout: the registry's guarded path (the tool sees a signal combining timeout and caller). */
@Tool({ name: 'wait_guarded', description: 'Waits until cancelled (with a timeout).', input: WaitInput, timeoutMs: 600_000 })
export class WaitGuardedTool implements ToolInterface<WaitInput> {
  execute(input: WaitInput, context: AgentContext): Promise<object> {
    return waitForAbort('wait_guarded', input, context);
  }
}

/** Needs a human's approval, then reports progress and waits like `wait`. */
@Tool({ name: 'wait_approved', description: 'Waits until cancelled, after approval.', input: WaitInput, approval: true })
export class WaitApprovedTool implements ToolInterface<WaitInput> {
  execute(input: WaitInput, context: AgentContext): Promise<object> {
    return waitForAbort('wait_approved', input, context);
  }
}

export class EmptyInput {}

/** What the waiting tools of this process saw. */
@Tool({ name: 'observed', description: 'Lists what the waiting tools saw.', input: EmptyInput })
export class ObservedTool implements ToolInterface<EmptyInput> {
  execute(): object {
    return { observed };
  }
}

export const progressTools = [CountTool, ReportsTool, WaitTool, WaitGuardedTool, WaitApprovedTool, ObservedTool];

export const progressRegistry = ToolRegistry.build({ tools: progressTools });

/** For `toolwright --module`: a tools module exports its registry as `registry`. */
export const registry = progressRegistry;
