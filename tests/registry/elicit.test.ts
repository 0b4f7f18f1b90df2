/**
 * `context.elicit` through `CallOptions.onElicit`, surface-free: the form a class becomes (titled
 * enums, defaults, multi-selects), the classes a form cannot be, and titled enums in tool inputs.
 */
import 'reflect-metadata';
import { IsOptional, IsString } from 'class-validator';
import {
  AgentContext,
  AgentMemory,
  InputUnavailableError,
  Param,
  Tool,
  ToolExecutionError,
  ToolRegistry,
  ToolwrightConfigError,
  type InputClass,
  type InputRequest,
  type InputSink,
  type ToolInterface,
} from '../../src';

class NoInput {}

class Choices {
  @Param({ enum: { red: 'Red', blue: 'Deep blue' } })
  colour!: string;

  @Param({ enum: { s: 'Small', l: 'Large' }, enumNames: true, default: 's' })
  @IsOptional()
  size?: string;

  @Param({ type: () => [String], enum: { a: 'Apples', b: 'Bananas' } })
  @IsOptional()
  fruit?: string[];
}

class Place {
  @Param()
  @IsString()
  city!: string;
}

class WithNested {
  @Param({ type: () => Place })
  place!: Place;
}

class WithList {
  @Param({ type: () => [String] })
  @IsOptional()
  @IsString({ each: true })
  tags?: string[];
}

/** The form the tool asks for comes from the call's input (a class name), the answer back as JSON. */
let form: InputClass = Choices;

@Tool({ name: 'ask', description: 'Asks the user', input: NoInput })
class AskTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<object> {
    const result = await context.elicit('Pick', form);
    return result.action === 'accept' ? { action: result.action, content: { ...result.content } } : result;
  }
}

/** A titled enum is also a tool parameter: told as oneOf, validated as an enum. */
class Paint {
  @Param({ enum: { red: 'Red', blue: 'Deep blue' } })
  colour!: string;
}

@Tool({ name: 'paint', description: 'Paints', input: Paint })
class PaintTool implements ToolInterface<Paint> {
  execute(input: Paint): object {
    return { painted: input.colour };
  }
}

const registry = ToolRegistry.build({ tools: [AskTool, PaintTool] });

async function ask(cls: InputClass, answer: Awaited<ReturnType<InputSink>>): Promise<{ result: unknown; asked: InputRequest[] }> {
  form = cls;
  const asked: InputRequest[] = [];
  const onElicit: InputSink = async (request) => {
    asked.push(request);
    return answer;
  };
  const raw = await registry.call('ask', {}, new AgentContext({ sessionId: 's' }), new AgentMemory({ agentName: 'a', userId: 'u' }), {
    onElicit,
  });
  return { result: JSON.parse(raw), asked };
}

describe('elicitation forms', () => {
  it('tells titled options as oneOf / enumNames / items.anyOf, and validates the answer against the values', async () => {
    const { result, asked } = await ask(Choices, { action: 'accept', content: { colour: 'blue', size: 'l', fruit: ['a', 'b'] } });
    expect(result).toEqual({ action: 'accept', content: { colour: 'blue', size: 'l', fruit: ['a', 'b'] } });
    expect(asked[0]).toEqual({
      mode: 'form',
      message: 'Pick',
      requestedSchema: {
        type: 'object',
        properties: {
          colour: {
            type: 'string',
            oneOf: [
              { const: 'red', title: 'Red' },
              { const: 'blue', title: 'Deep blue' },
            ],
          },
          size: { type: 'string', enum: ['s', 'l'], enumNames: ['Small', 'Large'], default: 's' },
          fruit: {
            type: 'array',
            items: {
              anyOf: [
                { const: 'a', title: 'Apples' },
                { const: 'b', title: 'Bananas' },
              ],
            },
          },
        },
        required: ['colour'],
      },
    });
  });

  it('refuses a title where a value belongs (INVALID_INPUT)', async () => {
    await expect(ask(Choices, { action: 'accept', content: { colour: 'Deep blue' } })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      errors: [{ path: 'colour', constraint: 'enum' }],
    });
  });

  it.each([
    ['a nested class', WithNested, 'WithNested.place'],
    ['an array of free strings', WithList, 'WithList.tags'],
  ])('refuses %s as a form with a ToolwrightConfigError naming the property', async (_what, cls, where) => {
    const failure = ask(cls, { action: 'accept', content: {} });
    await expect(failure).rejects.toBeInstanceOf(ToolExecutionError);
    const cause = ((await failure.catch((error: unknown) => error)) as ToolExecutionError).cause;
    expect(cause).toBeInstanceOf(ToolwrightConfigError);
    expect((cause as Error).message).toContain(where);
  });

  it('is INPUT_UNAVAILABLE, as the model sees it, with no onElicit', async () => {
    form = Choices;
    const failure = registry.call('ask', {}, new AgentContext({ sessionId: 's' }), new AgentMemory({ agentName: 'a', userId: 'u' }));
    await expect(failure).rejects.toBeInstanceOf(InputUnavailableError);
    const error = (await failure.catch((e: unknown) => e)) as InputUnavailableError;
    expect(JSON.parse(error.toToolResult())).toEqual({
      status: 'error',
      code: 'INPUT_UNAVAILABLE',
      message: 'This tool asked the user for input, which cannot be answered here: no user is there to ask on this surface.',
    });
  });
});

describe('titled enums in tool inputs', () => {
  it('are told as oneOf and validated as their values', async () => {
    expect(registry.describe('paint').definition.parameters.properties!.colour).toEqual({
      type: 'string',
      oneOf: [
        { const: 'red', title: 'Red' },
        { const: 'blue', title: 'Deep blue' },
      ],
    });
    expect(await registry.call('paint', { colour: 'red' })).toBe('{"painted":"red"}');
    await expect(registry.call('paint', { colour: 'Red' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
  });
});
