/**
 * Tools for the hostile-client MCP tests (tests/mcp/hostile-client.test.ts): one with an optional
 * privilege a smuggled prototype could set, a session notebook, and a slow call.
 */
import 'reflect-metadata';
import { IsBoolean, IsInt, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import { Param, Tool, ToolRegistry, type AgentContext, type ToolInterface } from '../../src';
import { FEATURE_PROMPTS, FEATURE_RESOURCES } from './feature-fixtures';

export class GrantInput {
  @Param() @IsString() @MaxLength(40) user!: string;
  @Param() @IsOptional() @IsBoolean() admin?: boolean;
}

@Tool({ name: 'grant', description: 'Grant access; admin only when asked for.', input: GrantInput })
export class GrantTool implements ToolInterface<GrantInput> {
  execute({ user, admin }: GrantInput): object {
    return { user, admin: admin === true };
  }
}

export class NoteInput {
  @Param() @IsString() @MaxLength(40) text!: string;
}

@Tool({ name: 'note', description: "Append to the session's notes.", input: NoteInput })
export class NoteTool implements ToolInterface<NoteInput> {
  execute({ text }: NoteInput, context: AgentContext): object {
    const notes = [...(context.getState<string[]>('notes') ?? []), text];
    context.setState('notes', notes);
    return { notes };
  }
}

export class SlowInput {
  @Param() @IsInt() @Min(0) ms!: number;
}

@Tool({ name: 'slow', description: 'Wait, then answer with the wait.', input: SlowInput, task: 'optional' })
export class SlowTool implements ToolInterface<SlowInput> {
  async execute({ ms }: SlowInput): Promise<object> {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { waited: ms };
  }
}

/** With the feature fixtures' resources and prompts: hostile reads and prompts on every transport too. */
export const hostileRegistry = ToolRegistry.build({
  tools: [GrantTool, NoteTool, SlowTool],
  resources: FEATURE_RESOURCES,
  prompts: FEATURE_PROMPTS,
});

@Tool({
  name: 'limited',
  description: 'Echo; twice an hour for everyone.',
  input: NoteInput,
  rateLimit: { limit: 2, windowMs: 3_600_000, per: 'global' },
})
export class LimitedTool implements ToolInterface<NoteInput> {
  execute({ text }: NoteInput): object {
    return { text };
  }
}

/** A registry of its own (its own counters), so the limit is hit by the one test that counts it. */
export const limitedRegistry = (): ToolRegistry => ToolRegistry.build({ tools: [LimitedTool] });
