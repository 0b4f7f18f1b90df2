import { getToolOptions } from './metadata';
import type { ToolOptions } from './types';

/** Whether `cls` is a `@Tool` class (for discovery: a DI module scanning its providers). */
export function isTool(cls: unknown): boolean {
  return typeof cls === 'function' && getToolOptions(cls) !== undefined;
}

/** The options `@Tool({ ... })` recorded on `cls` (frozen), or undefined for a class that is not a `@Tool`. */
export function toolOptionsOf(cls: unknown): Readonly<ToolOptions> | undefined {
  return typeof cls === 'function' ? getToolOptions(cls) : undefined;
}
