/**
 * The conformance suite's multi-round tools (MCP 2026-07-28, SEP-2322), written as a user would:
 * `context.elicit`, `sample` and `roots` with a `key` naming each question. On 2026-07-28 a question
 * becomes an `input_required` result and the tool runs again with the answers (the signed
 * requestState carries those of earlier rounds); on 2025-11-25 the same tool asks the client
 * directly, and in the agent runner a person answers.
 */
import { IsBoolean, IsString } from 'class-validator';
import type { AgentContext, PromptAnswer, PromptInterface, ToolInterface } from 'toolwright';
import { InputUnavailableError, Param, Prompt, Tool, ToolContent } from 'toolwright';
import { NoInput } from './tools';

export class NameForm {
  @Param() @IsString() name!: string;
}

export class ColorForm {
  @Param() @IsString() color!: string;
}

export class ConfirmForm {
  @Param() @IsBoolean() ok!: boolean;
}

export class ContextForm {
  @Param() @IsString() context!: string;
}

const text = (value: string) => ToolContent.of(ToolContent.text(value));

/** input-required-result-basic-elicitation, -result-type. */
@Tool({ name: 'test_input_required_result_elicitation', description: 'Asks the user their name', input: NoInput })
export class AskNameTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<ToolContent> {
    const answer = await context.elicit('What is your name?', NameForm, { key: 'user_name' });
    return text(answer.action === 'accept' ? `Hello, ${answer.content.name}!` : 'No name given.');
  }
}

/** input-required-result-basic-sampling. */
@Tool({ name: 'test_input_required_result_sampling', description: "Asks the client's model a question", input: NoInput })
export class AskModelTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<ToolContent> {
    const answer = await context.sample('What is the capital of France?', { maxTokens: 100, key: 'capital_question' });
    return text(`LLM response: ${answer.text}`);
  }
}

/** input-required-result-basic-list-roots. */
@Tool({ name: 'test_input_required_result_list_roots', description: "Lists the client's roots", input: NoInput })
export class ListRootsTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<ToolContent> {
    const roots = await context.roots({ key: 'client_roots' });
    return text(`Client roots: ${roots.map((r) => r.uri).join(', ') || '(none)'}`);
  }
}

/** input-required-result-request-state, -tampered-state: the confirmation comes back with the signed state. */
@Tool({ name: 'test_input_required_result_request_state', description: 'Asks for a confirmation', input: NoInput })
export class ConfirmTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<ToolContent> {
    const answer = await context.elicit('Please confirm', ConfirmForm, { key: 'confirm' });
    return text(answer.action === 'accept' && answer.content.ok ? 'Confirmed (state-ok).' : 'Not confirmed (state-ok).');
  }
}

@Tool({ name: 'test_input_required_result_tampered_state', description: 'Asks for a confirmation', input: NoInput })
export class TamperedStateTool extends ConfirmTool {}

/** input-required-result-multiple-input-requests: three questions asked together go out in one round. */
@Tool({
  name: 'test_input_required_result_multiple_inputs',
  description: 'Asks the user, the model and the client at once',
  input: NoInput,
})
export class ManyQuestionsTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<ToolContent> {
    const [name, greeting, roots] = await Promise.all([
      context.elicit('What is your name?', NameForm, { key: 'user_name' }),
      context.sample('Generate a greeting', { maxTokens: 50, key: 'greeting' }),
      context.roots({ key: 'client_roots' }),
    ]);
    const who = name.action === 'accept' ? name.content.name : 'someone';
    return text(`${greeting.text} ${who} (${roots.length} roots)`);
  }
}

/** input-required-result-multi-round: the second question is asked once the first is answered. */
@Tool({ name: 'test_input_required_result_multi_round', description: 'Asks two questions, one after the other', input: NoInput })
export class TwoStepTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<ToolContent> {
    const name = await context.elicit('Step 1: What is your name?', NameForm, { key: 'step1' });
    const color = await context.elicit('Step 2: What is your favorite color?', ColorForm, { key: 'step2' });
    const who = name.action === 'accept' ? name.content.name : 'someone';
    return text(`${who} likes ${color.action === 'accept' ? color.content.color : 'no color'}.`);
  }
}

/** input-required-result-capability-check: asks the person if the client can, else its model. */
@Tool({ name: 'test_input_required_result_capabilities', description: 'Asks whoever the client offers', input: NoInput })
export class WhoeverAnswersTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<ToolContent> {
    try {
      const answer = await context.elicit('What is your name?', NameForm, { key: 'user_name' });
      return text(answer.action === 'accept' ? `Hello, ${answer.content.name}!` : 'No name given.');
    } catch (error) {
      if (!(error instanceof InputUnavailableError)) throw error;
      const answer = await context.sample('Make up a name.', { maxTokens: 20, key: 'made_up_name' });
      return text(`Hello, ${answer.text}!`);
    }
  }
}

/** server-stateless: needs sampling, and a client that did not declare it gets -32021. */
@Tool({ name: 'test_missing_capability', description: "Needs the client's model", input: NoInput })
export class NeedsSamplingTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<ToolContent> {
    return text((await context.sample('Say hello.', { maxTokens: 20 })).text);
  }
}

/** input-required-result-non-tool-request: a prompt asks too. */
@Prompt({ name: 'test_input_required_result_prompt', description: 'A prompt that asks the user for its context', input: NoInput })
export class AskingPrompt implements PromptInterface {
  async get(_args: object, context: AgentContext): Promise<PromptAnswer> {
    const answer = await context.elicit('What context should the prompt use?', ContextForm, { key: 'user_context' });
    return `Use this context: ${answer.action === 'accept' ? answer.content.context : '(none)'}`;
  }
}

export const INPUT_TOOLS = [
  AskNameTool,
  AskModelTool,
  ListRootsTool,
  ConfirmTool,
  TamperedStateTool,
  ManyQuestionsTool,
  TwoStepTool,
  WhoeverAnswersTool,
  NeedsSamplingTool,
];
export const INPUT_PROMPTS = [AskingPrompt];
