/**
 * Tools that run as MCP tasks, for the tasks tests: each leaves a trace in a directory the test
 * reads (the process that runs a task is not the one the test asks), so a cancel that reached the
 * tool and a tool that ran once are seen, not assumed.
 */
import 'reflect-metadata';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { IsInt, IsString, Min } from 'class-validator';
import { Param, Tool, ToolContent, ToolRegistry, type AgentContext, type ToolInterface } from '../../src';

class WaitInput {
  @Param({ description: 'A name for the trace file' })
  @IsString()
  mark!: string;

  @Param({ description: 'How long to wait, in milliseconds' })
  @IsInt()
  @Min(0)
  ms!: number;
}

/** Where the traces go: the directory the worker was started with (tests/support/mcp-worker.ts). */
function trace(mark: string, line: string): void {
  const dir = process.env.TOOLWRIGHT_TASK_TRACES;
  if (dir) appendFileSync(join(dir, mark), `${line}\n`);
}

/** Waits, and writes `aborted` when its signal fires first (a tasks/cancel, from whichever replica). */
@Tool({ name: 'task_wait', description: 'Waits as a task', input: WaitInput, task: 'optional' })
export class TaskWaitTool implements ToolInterface<WaitInput> {
  async execute({ mark, ms }: WaitInput, context: AgentContext): Promise<ToolContent> {
    trace(mark, `started ${process.pid}`);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      context.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          trace(mark, 'aborted');
          reject(new Error('aborted'));
        },
        { once: true },
      );
    });
    return ToolContent.of(ToolContent.text(`waited ${ms} ms`));
  }
}

class MarkInput {
  @Param({ description: 'A name for the trace file' })
  @IsString()
  mark!: string;
}

/** Needs a human's approval first (asked through the task); writes `ran` each time it runs. */
@Tool({ name: 'task_approved', description: 'Runs once approved', input: MarkInput, task: 'optional', approval: true })
export class TaskApprovedTool implements ToolInterface<MarkInput> {
  execute({ mark }: MarkInput): ToolContent {
    trace(mark, 'ran');
    return ToolContent.of(ToolContent.text(`ran ${mark}`));
  }
}

/** Alice's alone: anyone else must not learn it exists, task or not. */
@Tool({ name: 'task_private', description: "Alice's task", input: MarkInput, task: 'optional' })
export class TaskPrivateTool implements ToolInterface<MarkInput> {
  isEnabled(context: AgentContext): boolean {
    return context.userId === 'alice';
  }

  execute({ mark }: MarkInput): ToolContent {
    trace(mark, 'ran');
    return ToolContent.of(ToolContent.text(`ran ${mark}`));
  }
}

export const taskRegistry = ToolRegistry.build({ tools: [TaskWaitTool, TaskApprovedTool, TaskPrivateTool] });
