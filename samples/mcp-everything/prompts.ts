/** The conformance suite's prompts, written as a user would: classes, their messages from `get`. */
import { IsString, MinLength } from 'class-validator';
import type { PromptAnswer, PromptInterface } from 'toolwright';
import { Param, Prompt, ToolContent } from 'toolwright';

const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

class NoArguments {}

/** prompts-get-simple. */
@Prompt({ name: 'test_simple_prompt', description: 'A simple prompt without arguments', input: NoArguments })
export class SimplePrompt implements PromptInterface {
  get(): PromptAnswer {
    return 'This is a simple prompt for testing.';
  }
}

class TwoArguments {
  @Param({ description: 'First test argument' })
  @IsString()
  @MinLength(1)
  arg1!: string;

  @Param({ description: 'Second test argument' })
  @IsString()
  @MinLength(1)
  arg2!: string;
}

/** prompts-get-with-args and completion-complete: arg1 completes from a short list. */
@Prompt({ name: 'test_prompt_with_arguments', description: 'A prompt with two required arguments', input: TwoArguments })
export class PromptWithArguments implements PromptInterface<TwoArguments> {
  get({ arg1, arg2 }: TwoArguments): PromptAnswer {
    return `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`;
  }

  complete(argument: string, value: string): string[] {
    const known = argument === 'arg1' ? ['paris', 'park', 'party', 'test', 'testValue1'] : ['world', 'testValue2'];
    return known.filter((v) => v.startsWith(value));
  }
}

class ResourceArgument {
  @Param({ description: 'URI of the resource to embed' })
  @IsString()
  @MinLength(1)
  resourceUri!: string;
}

/** prompts-get-embedded-resource. */
@Prompt({ name: 'test_prompt_with_embedded_resource', description: 'A prompt that embeds a resource', input: ResourceArgument })
export class EmbeddedResourcePrompt implements PromptInterface<ResourceArgument> {
  get({ resourceUri }: ResourceArgument): PromptAnswer {
    return [
      {
        role: 'user',
        content: ToolContent.resource({ uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' }),
      },
      { role: 'user', content: 'Please process the embedded resource above.' },
    ];
  }
}

/** prompts-get-with-image. */
@Prompt({ name: 'test_prompt_with_image', description: 'A prompt with an image', input: NoArguments })
export class ImagePrompt implements PromptInterface {
  get(): PromptAnswer {
    return [
      { role: 'user', content: ToolContent.image(PIXEL, 'image/png') },
      { role: 'user', content: 'Please analyze the image above.' },
    ];
  }
}

export const EVERYTHING_PROMPTS = [SimplePrompt, PromptWithArguments, EmbeddedResourcePrompt, ImagePrompt];
