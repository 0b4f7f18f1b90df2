/**
 * The tools of the MCP conformance suite's "everything" server, written with toolwright's public
 * API (its resources are in resources.ts, its prompts in prompts.ts).
 */
import type { AgentContext, ToolDefinition, ToolInterface } from 'toolwright';
import { IsBoolean, IsInt, IsNumber, IsOptional, IsString } from 'class-validator';
import { Param, Tool, ToolContent } from 'toolwright';

/** No arguments. */
export class NoInput {}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** tools-call-simple-text. A result is JSON (a bare string is refused, INVALID_OUTPUT): the text rides in an object. */
@Tool({ name: 'test_simple_text', description: 'Returns a simple text response', input: NoInput })
export class SimpleTextTool implements ToolInterface {
  execute(): object {
    return { text: 'This is a simple text response for testing.' };
  }
}

/** tools-call-error: a thrown error reaches the client as `isError: true`. */
@Tool({ name: 'test_error_handling', description: 'Always fails, to test error reporting', input: NoInput })
export class ErrorHandlingTool implements ToolInterface {
  execute(): never {
    throw new Error('This tool intentionally returns an error for testing');
  }
}

/** tools-call-with-progress: 0, 50 and 100 of 100, about 50 ms apart. */
@Tool({ name: 'test_tool_with_progress', description: 'Reports progress 0, 50 and 100 of 100', input: NoInput })
export class ProgressTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<object> {
    context.reportProgress(0, 100);
    await sleep(50);
    context.reportProgress(50, 100);
    await sleep(50);
    context.reportProgress(100, 100);
    return { done: true };
  }
}

/** tools-call-with-logging: three info messages, about 50 ms apart (sent once the client set a level). */
@Tool({ name: 'test_tool_with_logging', description: 'Logs three messages while it runs', input: NoInput })
export class LoggingTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<object> {
    context.log('info', 'Tool execution started');
    await sleep(50);
    context.log('info', 'Tool processing data');
    await sleep(50);
    context.log('info', 'Tool execution completed');
    return { done: true };
  }
}

/** A 1×1 PNG. */
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** A tenth of a second of silence: a WAV header and 800 zero samples (8 kHz, 8-bit mono). */
function silence(): Uint8Array {
  const samples = 800;
  const wav = Buffer.alloc(44 + samples, 0x80);
  wav.write('RIFF', 0);
  wav.writeUInt32LE(36 + samples, 4);
  wav.write('WAVEfmt ', 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(8000, 28);
  wav.writeUInt16LE(1, 32);
  wav.writeUInt16LE(8, 34);
  wav.write('data', 36);
  wav.writeUInt32LE(samples, 40);
  return wav;
}

/** tools-call-image. */
@Tool({ name: 'test_image_content', description: 'Returns an image', input: NoInput })
export class ImageTool implements ToolInterface {
  execute(): ToolContent {
    return ToolContent.of(ToolContent.image(PIXEL, 'image/png'));
  }
}

/** tools-call-audio. */
@Tool({ name: 'test_audio_content', description: 'Returns a short sound', input: NoInput })
export class AudioTool implements ToolInterface {
  execute(): ToolContent {
    return ToolContent.of(ToolContent.audio(silence(), 'audio/wav'));
  }
}

/** tools-call-embedded-resource. */
@Tool({ name: 'test_embedded_resource', description: 'Returns an embedded resource', input: NoInput })
export class EmbeddedResourceTool implements ToolInterface {
  execute(): ToolContent {
    return ToolContent.of(
      ToolContent.resource({ uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' }),
    );
  }
}

/** tools-call-mixed-content: text, an image and a resource in one result. */
@Tool({ name: 'test_multiple_content_types', description: 'Returns text, an image and a resource', input: NoInput })
export class MixedContentTool implements ToolInterface {
  execute(): ToolContent {
    return ToolContent.of([
      ToolContent.text('Multiple content types test:'),
      ToolContent.image(PIXEL, 'image/png'),
      ToolContent.resource({ uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' }),
    ]);
  }
}

/** tools-call-elicitation: the message to show the user. */
export class ElicitationInput {
  @Param({ description: 'The message to show the user' })
  @IsString()
  message!: string;
}

/** The form test_elicitation asks the user to fill in. */
export class UserInfo {
  @Param({ description: "User's response" })
  @IsString()
  username!: string;

  @Param({ description: "User's email address" })
  @IsString()
  email!: string;
}

/** The user's answer as the suite expects to read it back. */
const answered = (result: { action: string; content?: object }) =>
  ToolContent.of(ToolContent.text(`User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`));

/** tools-call-elicitation: asks the user for a username and an email mid-call. */
@Tool({ name: 'test_elicitation', description: 'Asks the user for their information', input: ElicitationInput })
export class ElicitationTool implements ToolInterface<ElicitationInput> {
  async execute(input: ElicitationInput, context: AgentContext): Promise<ToolContent> {
    return answered(await context.elicit(input.message, UserInfo));
  }
}

/** elicitation-sep1034-defaults: a default for every primitive type. */
export class DefaultsForm {
  @Param({ description: 'User name', default: 'John Doe' })
  @IsOptional()
  @IsString()
  name?: string;

  @Param({ description: 'User age', default: 30 })
  @IsOptional()
  @IsInt()
  age?: number;

  @Param({ description: 'User score', default: 95.5 })
  @IsOptional()
  @IsNumber()
  score?: number;

  @Param({ description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' })
  @IsOptional()
  status?: string;

  @Param({ description: 'Verification status', default: true })
  @IsOptional()
  @IsBoolean()
  verified?: boolean;
}

@Tool({ name: 'test_elicitation_sep1034_defaults', description: 'Asks for a form whose fields all have defaults', input: NoInput })
export class ElicitationDefaultsTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<ToolContent> {
    return answered(await context.elicit('Please review and update the form fields with defaults', DefaultsForm));
  }
}

/** elicitation-sep1330-enums: each kind of enum field a form can have. */
export class EnumsForm {
  @Param({ description: 'Untitled single-select', enum: ['option1', 'option2', 'option3'] })
  @IsOptional()
  untitledSingle?: string;

  @Param({ description: 'Titled single-select', enum: { value1: 'First Option', value2: 'Second Option', value3: 'Third Option' } })
  @IsOptional()
  titledSingle?: string;

  @Param({
    description: 'Legacy titled enum',
    enum: { opt1: 'Option One', opt2: 'Option Two', opt3: 'Option Three' },
    enumNames: true,
  })
  @IsOptional()
  legacyEnum?: string;

  @Param({ description: 'Untitled multi-select', type: () => [String], enum: ['option1', 'option2', 'option3'] })
  @IsOptional()
  untitledMulti?: string[];

  @Param({
    description: 'Titled multi-select',
    type: () => [String],
    enum: { value1: 'First Choice', value2: 'Second Choice', value3: 'Third Choice' },
  })
  @IsOptional()
  titledMulti?: string[];
}

@Tool({ name: 'test_elicitation_sep1330_enums', description: 'Asks for a form with every kind of enum field', input: NoInput })
export class ElicitationEnumsTool implements ToolInterface {
  async execute(_input: object, context: AgentContext): Promise<ToolContent> {
    return answered(await context.elicit('Please select options from the enum fields', EnumsForm));
  }
}

/** tools-call-sampling: the prompt for the client's model. */
export class SamplingInput {
  @Param({ description: 'The prompt to send to the model' })
  @IsString()
  prompt!: string;
}

/** tools-call-sampling: asks the client's model and returns its answer. */
@Tool({ name: 'test_sampling', description: "Asks the client's model to answer a prompt", input: SamplingInput })
export class SamplingTool implements ToolInterface<SamplingInput> {
  async execute(input: SamplingInput, context: AgentContext): Promise<ToolContent> {
    const answer = await context.sample(input.prompt, { maxTokens: 100 });
    return ToolContent.of(ToolContent.text(`LLM response: ${answer.text}`));
  }
}

/**
 * json-schema-2020-12: a tool whose schema no decorator writes (`$defs` with an `$anchor`, `allOf`/`anyOf`,
 * `if`/`then`/`else`) gives its JSON Schema by hand in `definition()`; MCP lists it as written, and the
 * arguments are validated against it.
 */
export class JsonSchema2020Tool implements ToolInterface {
  definition(): ToolDefinition {
    return {
      name: 'json_schema_2020_12_tool',
      description: 'Tool with JSON Schema 2020-12 features',
      parameters: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: {
          address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
        },
        properties: {
          name: { type: 'string' },
          address: { $ref: '#/$defs/address' },
          contactMethod: { type: 'string', enum: ['phone', 'email'] },
          phone: { type: 'string' },
          email: { type: 'string' },
        },
        allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
        if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
        then: { required: ['phone'] },
        else: { required: ['email'] },
        additionalProperties: false,
      },
    };
  }

  execute(args: Record<string, unknown>): object {
    return { received: args };
  }
}

/** http-custom-header-server-validation (SEP-2243): the region rides in the `Mcp-Param-Region` header too, for routing. */
export class RegionInput {
  @Param({ description: 'Where to run', mcpHeader: 'Region' })
  @IsString()
  region!: string;
}

@Tool({ name: 'test_header_param', description: 'Echoes the region it was routed to', input: RegionInput })
export class HeaderParamTool implements ToolInterface<RegionInput> {
  execute({ region }: RegionInput): object {
    return { region };
  }
}

export const EVERYTHING_TOOLS = [
  SimpleTextTool,
  ErrorHandlingTool,
  ProgressTool,
  LoggingTool,
  ImageTool,
  AudioTool,
  EmbeddedResourceTool,
  MixedContentTool,
  ElicitationTool,
  ElicitationDefaultsTool,
  ElicitationEnumsTool,
  SamplingTool,
  JsonSchema2020Tool,
  HeaderParamTool,
];
