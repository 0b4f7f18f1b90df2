/**
 * The tools the conformance suite's tasks scenarios call (SEP-2663), written with toolwright's
 * public API: `@Tool({ task })` lets an MCP 2026-07-28 client that declared the tasks extension run
 * a tool as a task (it polls tasks/get, answers questions with tasks/update, stops it with tasks/cancel).
 */
import type { AgentContext, ToolInterface } from 'toolwright';
import { IsBoolean, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { Param, Tool, ToolContent } from 'toolwright';
import { NoInput } from './tools';

/** Waits `ms`, or rejects as soon as the call is cancelled (tasks/cancel aborts `context.signal`). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal.throwIfAborted();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => (clearTimeout(timer), reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'))),
      { once: true },
    );
  });
}

export class GreetInput {
  @Param({ description: 'Who to greet' })
  @IsString()
  name!: string;
}

/** A plain tool: never a task, whatever the client sends. */
@Tool({ name: 'greet', description: 'Says hello', input: GreetInput })
export class GreetTool implements ToolInterface<GreetInput> {
  execute(input: GreetInput): ToolContent {
    return ToolContent.of(ToolContent.text(`Hello, ${input.name}!`));
  }
}

export class ComputeInput {
  @Param({ description: 'How long the computation takes, in seconds' })
  @IsInt()
  @Min(0)
  @Max(3600)
  seconds!: number;

  @Param({ description: 'A label to find the result by' })
  @IsOptional()
  @IsString()
  label?: string;
}

/** A long computation: a task for a client that can poll, a plain (long) call for one that cannot. */
@Tool({ name: 'slow_compute', description: 'Computes for a while', input: ComputeInput, task: 'optional' })
export class SlowComputeTool implements ToolInterface<ComputeInput> {
  async execute(input: ComputeInput, context: AgentContext): Promise<ToolContent> {
    await sleep(input.seconds * 1000, context.signal);
    return ToolContent.of(ToolContent.text(`Computed ${input.label ?? 'result'} in ${input.seconds}s`));
  }
}

/** A job whose own error is its result: the task completes, with `isError`. Only ever a task. */
@Tool({ name: 'failing_job', description: 'Fails after a second', input: NoInput, task: 'required' })
export class FailingJobTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<never> {
    await sleep(1000, context.signal);
    throw new Error('The job failed.');
  }
}

/** A job the server stops at its timeout: it produced no result, so the task fails (an error, no result). */
@Tool({ name: 'protocol_error_job', description: 'Hangs until the server stops it', input: NoInput, task: 'optional', timeoutMs: 500 })
export class ProtocolErrorJobTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<never> {
    await sleep(3_600_000, context.signal);
    throw new Error('unreachable');
  }
}

export class DeleteInput {
  @Param({ description: 'The file to delete' })
  @IsString()
  filename!: string;
}

/** The answer to a yes-or-no question (a name, when the question asks for one). */
export class Confirmation {
  @Param({ description: 'Yes or no' })
  @IsOptional()
  @IsBoolean()
  confirm?: boolean;

  @Param({ description: 'A name' })
  @IsOptional()
  @IsString()
  name?: string;
}

/** Asks before it deletes: the task waits in `input_required` until the client answers. */
@Tool({ name: 'confirm_delete', description: 'Deletes a file once the user confirms', input: DeleteInput, task: 'optional' })
export class ConfirmDeleteTool implements ToolInterface<DeleteInput> {
  async execute(input: DeleteInput, context: AgentContext): Promise<ToolContent> {
    const answer = await context.elicit(`Delete ${input.filename}?`, Confirmation);
    const yes = answer.action === 'accept' && answer.content.confirm === true;
    return ToolContent.of(ToolContent.text(yes ? `Deleted ${input.filename}` : `Kept ${input.filename}`));
  }
}

/** Two questions at once: the task shows both, and works again once both are answered. */
@Tool({ name: 'multi_input', description: 'Asks two questions at once', input: NoInput, task: 'optional' })
export class MultiInputTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<ToolContent> {
    const [first, second] = await Promise.all([
      context.elicit('First value?', Confirmation),
      context.elicit('Second value?', Confirmation),
    ]);
    const name = (answer: typeof first) => (answer.action === 'accept' ? (answer.content.name ?? '?') : answer.action);
    return ToolContent.of(ToolContent.text(`Got ${name(first)} and ${name(second)}`));
  }
}

export class NameForm {
  @Param({ description: 'Your name' })
  @IsString()
  name!: string;
}

/** Asks its question on the request first (multi-round-trip); the round that answers it becomes the task. */
@Tool({
  name: 'test_tool_with_task',
  description: 'Asks a name, then greets as a task',
  input: NoInput,
  task: { support: 'required', inputFirst: true },
})
export class NameThenTaskTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<ToolContent> {
    const answer = await context.elicit('What is your name?', NameForm);
    return ToolContent.of(ToolContent.text(answer.action === 'accept' ? `Hello, ${answer.content.name}!` : `No name (${answer.action})`));
  }
}

export const TASK_TOOLS = [
  GreetTool,
  SlowComputeTool,
  FailingJobTool,
  ProtocolErrorJobTool,
  ConfirmDeleteTool,
  MultiInputTool,
  NameThenTaskTool,
];
