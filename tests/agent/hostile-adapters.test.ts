/**
 * A hostile model through the adapters (AI SDK, OpenAI Agents SDK, LangChain): whatever arguments
 * the host library hands over (broken JSON text, an array, a number, null, an object whose keys a
 * parser turned into a prototype, a huge value) and whatever the tool does (throw, hang past its
 * timeout), the call answers with the compact typed error JSON the model may see, never a throw.
 */
import { IsOptional, IsBoolean, IsString, MaxLength } from 'class-validator';
import type { ToolExecutionOptions } from 'ai';
import { AgentContext, AgentMemory, Param, Tool, ToolRegistry, type ToolInterface } from '../../src';
import { toAiSdkTools } from '../../src/adapters/ai-sdk';
import { toOpenAIAgentsTools } from '../../src/adapters/openai-agents';
import { toLangChainTools } from '../../src/adapters/langchain';

class GrantInput {
  @Param() @IsString() @MaxLength(100) user!: string;
  @Param() @IsOptional() @IsBoolean() admin?: boolean;
}

@Tool({ name: 'grant', description: 'Grant access.', input: GrantInput })
class GrantTool implements ToolInterface<GrantInput> {
  execute({ user, admin }: GrantInput) {
    return { user, admin: admin === true };
  }
}

@Tool({ name: 'boom', description: 'Throws.', input: GrantInput })
class BoomTool implements ToolInterface<GrantInput> {
  execute(): never {
    throw new RangeError('internal detail');
  }
}

@Tool({ name: 'hang', description: 'Never answers.', input: GrantInput, timeoutMs: 100 })
class HangTool implements ToolInterface<GrantInput> {
  execute(): Promise<never> {
    return new Promise(() => undefined);
  }
}

const registry = ToolRegistry.build({ tools: [GrantTool, BoomTool, HangTool] });
const session = { context: new AgentContext({ sessionId: 's', userId: 'u' }), memory: new AgentMemory({ agentName: 'a', userId: 'u' }) };

/** [tool, arguments as the host hands them, the code of the answer (undefined: a success)]. */
const hostile: Array<[string, unknown, string | undefined]> = [
  ['grant', '{"user":', 'INVALID_JSON'],
  ['grant', [1, 2], 'INVALID_ARGUMENTS'],
  ['grant', 5, 'INVALID_ARGUMENTS'],
  ['grant', Object.assign(Object.create({ admin: true }) as object, { user: 'u' }), 'INVALID_ARGUMENTS'],
  ['grant', { user: 'x'.repeat(2_000_000) }, 'INVALID_ARGUMENTS'],
  ['grant', { user: 'u', constructor: { prototype: { admin: true } } }, 'INVALID_ARGUMENTS'],
  ['boom', { user: 'u' }, 'TOOL_FAILED'],
  ['hang', { user: 'u' }, 'TOOL_TIMEOUT'],
  ['grant', { user: 'u' }, undefined],
];

const codeOf = (text: string) => (JSON.parse(text) as { code?: string }).code;

describe('a hostile model through the adapters', () => {
  it('AI SDK: every call answers with a typed result', async () => {
    const tools = toAiSdkTools(registry, { session });
    const codes = [];
    for (const [name, args] of hostile) {
      const execution = { toolCallId: `c-${codes.length}`, messages: [], abortSignal: undefined } as unknown as ToolExecutionOptions;
      const result = (await tools[name].execute!(args, execution)) as { code?: string };
      codes.push(result.code);
    }
    expect(codes).toEqual(hostile.map(([, , code]) => code));
  });

  it('OpenAI Agents SDK: every call answers with a typed result', async () => {
    const tools = Object.fromEntries(toOpenAIAgentsTools(registry, { session }).map((t) => [t.name, t]));
    const codes = [];
    for (const [name, args] of hostile) {
      const execute = (tools[name] as unknown as { invoke: (rc: unknown, input: string) => Promise<string> }).invoke;
      // The Agents SDK hands the model's text to invoke; objects go through as their JSON (a prototype's keys are lost there).
      const text = typeof args === 'string' ? args : JSON.stringify(args);
      codes.push(codeOf(await execute({ context: {} }, text)));
    }
    // The prototype's keys are lost in JSON.stringify: that call is a plain valid one there.
    expect(codes).toEqual(hostile.map(([, , code], i) => (i === 3 ? undefined : code)));
  });

  it('LangChain: every call answers with a typed result', async () => {
    const tools = Object.fromEntries(toLangChainTools(registry, { session }).map((t) => [t.name, t]));
    const codes = [];
    for (const [name, args] of hostile) {
      const answer = (await tools[name].invoke({ type: 'tool_call', id: `c-${codes.length}`, name, args } as never)) as { content: string };
      codes.push(codeOf(answer.content));
    }
    expect(codes).toEqual(hostile.map(([, , code]) => code));
  });
});
