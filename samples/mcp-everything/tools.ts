/**
 * The tools of the MCP conformance suite's "everything" server that toolwright can express
 * today. What it cannot express yet (elicitation,
 * sampling, resources, prompts, completions, and a
 * `$schema` of 2020-12: the registry's Ajv refuses it) is listed in
 * tests/mcp-conformance/expected-failures.json.
 */
import type { AgentContext, ToolInterface } from 'toolwright';
import { Tool, ToolContent } from 'toolwright';

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

export const EVERYTHING_TOOLS = [
  SimpleTextTool,
  ErrorHandlingTool,
  ProgressTool,
  LoggingTool,
  ImageTool,
  AudioTool,
  EmbeddedResourceTool,
  MixedContentTool,
];
