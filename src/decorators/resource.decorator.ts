import { setResourceOptions } from '../metadata/metadata';
import type { ResourceOptions, ResourceTemplateOptions } from '../metadata/feature-types';

/**
 * Marks a class as a resource at one URI: its `read(args, context, memory)` answers the content.
 * Registered with `ToolRegistry.build({ resources })`, resolved from the container like a tool.
 */
export function Resource(options: ResourceOptions): ClassDecorator {
  return (target) => setResourceOptions(target, { kind: 'resource', ...options });
}

/** Marks a class as the resources under a URI template: `read` gets the template's variables, validated. */
export function ResourceTemplate<A = unknown>(options: ResourceTemplateOptions<A>): ClassDecorator {
  return (target) => setResourceOptions(target, { kind: 'resourceTemplate', ...(options as ResourceTemplateOptions) });
}
