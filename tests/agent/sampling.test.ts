/**
 * `context.sample` and `context.elicit` in the agent runner: sampling answered by the agent's own
 * model (or another) when `sampling` says so; otherwise, and for elicitation (no one to ask in a
 * run yet), the model gets INPUT_UNAVAILABLE as the tool's result and goes on.
 */
import { IsString } from 'class-validator';
import { Agent, AgentContext, InMemoryStore, Param, ScriptedModel, Tool, type Message, type Model, type ToolInterface } from 'toolwright';
import type { ModelUsage } from '../../src/agent/model';

class NoInput {}

class Topic {
  @Param({ description: 'What to summarize' })
  @IsString()
  topic!: string;
}

@Tool({ name: 'summarize', description: 'Summarizes with a model', input: Topic })
class SummarizeTool implements ToolInterface<Topic> {
  async execute({ topic }: Topic, context: AgentContext): Promise<object> {
    const answer = await context.sample(`Summarize ${topic}`, { systemPrompt: 'One line.', maxTokens: 20 });
    return { summary: answer.text, model: answer.model };
  }
}

class Name {
  @Param()
  @IsString()
  name!: string;
}

@Tool({ name: 'ask_name', description: 'Asks the user their name', input: NoInput })
class AskNameTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<object> {
    const answer = await context.elicit('Your name?', Name);
    return answer.action === 'accept' ? { name: answer.content.name } : { action: answer.action };
  }
}

const toolResults = (messages: readonly Message[]) =>
  messages.filter((m): m is Extract<Message, { role: 'tool' }> => m.role === 'tool').map((m) => JSON.parse(m.content) as object);

const run = (agent: Agent, sessionId: string) => agent.run('go', { sessionId, userId: 'u-1' });

describe('context.sample in the agent runner', () => {
  it("is answered by the agent's own model with `sampling: true`: a request without tools, its tokens in the run's usage", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'summarize', arguments: { topic: 'MCP' } }] },
      (request) => ({ text: `sampled with ${request.tools.length} tools: ${JSON.stringify(request.messages)}` }),
      (request) => ({ text: `done: ${(request.messages.at(-1) as { content: string }).content}` }),
    ]);
    // Every response's usage, to add up: the run's usage must count the sample's too.
    const used: ModelUsage[] = [];
    const counting: Model = { name: model.name, generate: (r) => model.generate(r).then((res) => (used.push(res.usage!), res)) };
    const agent = new Agent({ name: 'a', model: counting, tools: [SummarizeTool], store: new InMemoryStore(), sampling: true });
    const result = await run(agent, 's-own');
    expect(result.status).toBe('completed');
    // The second request is the tool's: its system prompt, its message, no tools.
    expect(model.requests[1]).toMatchObject({
      instructions: 'One line.',
      messages: [{ role: 'user', content: 'Summarize MCP' }],
      tools: [],
    });
    expect(result.output).toBe(
      `done: ${JSON.stringify({ summary: 'sampled with 0 tools: [{"role":"user","content":"Summarize MCP"}]', model: 'scripted' })}`,
    );
    expect(result.turns).toBe(2); // the sample is not a turn of the run, but its tokens count
    expect(used).toHaveLength(3);
    expect(result.usage).toEqual({
      inputTokens: used.reduce((n, u) => n + u.inputTokens, 0),
      outputTokens: used.reduce((n, u) => n + u.outputTokens, 0),
    });
  });

  it('is answered by another model when given one', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'summarize', arguments: { topic: 'x' } }] }, { text: 'ok' }]);
    const sampler = new ScriptedModel([{ text: 'a summary' }], { name: 'small' });
    const agent = new Agent({ name: 'a', model, tools: [SummarizeTool], store: new InMemoryStore(), sampling: sampler });
    const result = await run(agent, 's-other');
    expect(toolResults(model.requests[1].messages)).toEqual([{ summary: 'a summary', model: 'small' }]);
    expect(result.output).toBe('ok');
  });

  it('is INPUT_UNAVAILABLE without `sampling`: the model sees it as the tool result and the run goes on', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'summarize', arguments: { topic: 'x' } }] }, { text: 'without it, then' }]);
    const agent = new Agent({ name: 'a', model, tools: [SummarizeTool], store: new InMemoryStore() });
    const result = await run(agent, 's-none');
    expect(result.output).toBe('without it, then');
    expect(result.toolCalls[0]).toMatchObject({ status: 'error', code: 'INPUT_UNAVAILABLE' });
    expect(toolResults(model.requests[1].messages)).toEqual([
      {
        status: 'error',
        code: 'INPUT_UNAVAILABLE',
        message:
          "This tool asked the client's model for a completion, which cannot be answered here: no model is there to ask on this surface.",
      },
    ]);
  });
});

describe('context.elicit in the agent runner', () => {
  // Answering it: tests/agent/elicit-pause.test.ts.
  it("pauses the run on the person's input, as an approval does; the model is not asked again", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'ask_name', arguments: {} }] }, { text: 'not reached' }]);
    const agent = new Agent({ name: 'a', model, tools: [AskNameTool], store: new InMemoryStore() });
    const result = await run(agent, 's-elicit');
    expect(result.status).toBe('paused');
    expect(result.inputs).toEqual([expect.objectContaining({ name: 'ask_name', request: expect.objectContaining({ mode: 'form' }) })]);
    expect(model.requests).toHaveLength(1);
  });
});
