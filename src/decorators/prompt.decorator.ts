import { setPromptOptions } from '../metadata/metadata';
import type { PromptOptions } from '../metadata/feature-types';

/**
 * Marks a class as a prompt: its `get(args, context, memory)` answers the messages. Registered
 * with `ToolRegistry.build({ prompts })`, resolved from the container like a tool.
 */
export function Prompt<A = unknown>(options: PromptOptions<A>): ClassDecorator {
  return (target) => setPromptOptions(target, options);
}
