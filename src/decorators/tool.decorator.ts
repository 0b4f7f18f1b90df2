import { setToolOptions } from '../metadata/metadata';
import type { ToolOptions } from '../metadata/types';

/**
 * Marks a class as a tool. Checked and turned into a frozen definition by `ToolRegistry.build`;
 * the decorator itself only records its options (and makes TypeScript emit the constructor's
 * parameter types, which the container needs for injection).
 */
export function Tool<A = unknown>(options: ToolOptions<A>): ClassDecorator {
  return (target) => setToolOptions(target, options as ToolOptions);
}
