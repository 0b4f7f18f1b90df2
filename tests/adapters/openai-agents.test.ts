import { Agent, Runner, Usage, type AgentInputItem, type Model, type ModelRequest, type ModelResponse } from '@openai/agents-core';
import { IsOptional, IsString } from 'class-validator';
import { AgentContext, AgentMemory, Param, Tool, ToolRegistry } from '../../src';
import { toOpenAIAgentsTools } from '../../src/adapters/openai-agents';
import { registry } from '../fixtures/toolwright.config';

type SerializedFunctionTool = { type: string; name: string; strict?: boolean; parameters: Record<string, unknown> };

/** A fake Agents SDK model: first a function call, then a final message; it records every request. */
class FakeModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly call: { name: string; arguments: string }) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const usage = new Usage();
    if (this.requests.length === 1) {
      return {
        usage,
        output: [{ type: 'function_call', callId: 'call-1', name: this.call.name, arguments: this.call.arguments, status: 'completed' }],
      };
    }
    return {
      usage,
      output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }],
    };
  }

  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('FakeModel does not stream');
  }

  /** The function_call_result the model received on its second turn. */
  toolOutput(): unknown {
    const input = this.requests[1].input as AgentInputItem[];
    const result = input.find((item) => item.type === 'function_call_result') as { output: unknown } | undefined;
    return result?.output;
  }
}

const outputText = (output: unknown) => {
  const o = output as string | { type: string; text: string };
  return JSON.parse(typeof o === 'string' ? o : o.text);
};

describe('OpenAI Agents SDK adapter (Runner + fake Model)', () => {
  const runner = new Runner({ tracingDisabled: true });

  it('runs one tool call through the registry with the session resolved from the run context', async () => {
    const context = new AgentContext({ sessionId: 's-oa', userId: 'u-oa' });
    const memory = new AgentMemory({ agentName: 'oa', userId: 'u-oa' });
    const model = new FakeModel({ name: 'note', arguments: '{"text":"from agents sdk"}' });
    const agent = new Agent<{ session: { context: AgentContext; memory: AgentMemory } }>({
      name: 'notes',
      instructions: 'Take notes.',
      model,
      tools: toOpenAIAgentsTools(registry, { session: ({ runContext }) => runContext!.context.session }),
    });

    const result = await runner.run(agent, 'note this', { context: { session: { context, memory } } });

    expect(result.finalOutput).toBe('done');
    const expected = { notes: ['from agents sdk'], sessionId: 's-oa', userId: 'u-oa', tenantId: null, facts: 1 };
    expect(outputText(model.toolOutput())).toEqual(expected);
    expect(context.getState('notes')).toEqual(['from agents sdk']);
    expect(memory.getFacts()).toHaveLength(1);

    const offered = model.requests[0].tools as SerializedFunctionTool[];
    expect(offered.map((t) => t.name)).toEqual(['add', 'note', 'explode']);
    expect(offered[1]).toMatchObject({ type: 'function', strict: false, parameters: registry.describe('note').definition.parameters });
  });

  it("returns toolwright's structured error to the model for invalid arguments", async () => {
    const session = { context: new AgentContext({ sessionId: 's' }), memory: new AgentMemory({ agentName: 'oa', userId: 'u' }) };
    const model = new FakeModel({ name: 'add', arguments: '{"a":1,"b":"2"}' });
    const agent = new Agent({ name: 'calc', model, tools: toOpenAIAgentsTools(registry, { session }) });

    await runner.run(agent, 'add');

    expect(outputText(model.toolOutput())).toMatchObject({
      status: 'error',
      code: 'INVALID_ARGUMENTS',
      errors: [expect.objectContaining({ path: 'b' })],
    });
  });

  it('in strict mode sends the strict schema and maps null back to absent before toolwright validates', async () => {
    class GreetInput {
      @Param({ description: 'Who to greet' }) @IsString() name!: string;
      @Param({ description: 'Optional title' }) @IsOptional() @IsString() title?: string;
    }
    @Tool({ name: 'greet', description: 'Greet someone.', input: GreetInput })
    class GreetTool {
      execute(args: GreetInput) {
        return { greeting: `Hello ${args.title ? `${args.title} ` : ''}${args.name}`, hasTitle: 'title' in args };
      }
    }
    const greeter = ToolRegistry.build({ tools: [GreetTool] });
    const session = { context: new AgentContext({ sessionId: 's' }), memory: new AgentMemory({ agentName: 'oa', userId: 'u' }) };
    const model = new FakeModel({ name: 'greet', arguments: '{"name":"Ada","title":null}' });
    const agent = new Agent({ name: 'greeter', model, tools: toOpenAIAgentsTools(greeter, { session, strict: true }) });

    await runner.run(agent, 'greet Ada');

    const [offered] = model.requests[0].tools as SerializedFunctionTool[];
    expect(offered).toMatchObject({
      name: 'greet',
      strict: true,
      parameters: { additionalProperties: false, required: ['name', 'title'] },
    });
    expect(outputText(model.toolOutput())).toEqual({ greeting: 'Hello Ada', hasTitle: false });
  });
});
