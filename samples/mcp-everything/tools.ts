/**
 * The tools of the MCP conformance suite's "everything" server that toolwright can express
 * today. What it cannot express yet (images, audio, embedded resources, elicitation,
 * sampling, resources, prompts, completions, and a
 * `$schema` of 2020-12: the registry's Ajv refuses it) is listed in
 * tests/mcp-conformance/expected-failures.json.
 */
import type { AgentContext, ToolInterface } from 'toolwright';
import { Tool } from 'toolwright';

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

export const EVERYTHING_TOOLS = [SimpleTextTool, ErrorHandlingTool, ProgressTool, LoggingTool];
