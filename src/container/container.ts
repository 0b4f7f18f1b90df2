import { Container, type ContainerInstance } from 'typedi';
import type { ClassType } from '../metadata/types';

/** What the registry needs of a DI container: typedi's `Container` fits as it is. */
export interface ContainerLike {
  get<T>(cls: ClassType<T>): T;
}

/**
 * A typedi container (the global one by default) that registers a tool class on first use, so
 * tools need only `@Tool` (which makes TypeScript emit the constructor types typedi injects from).
 */
export function fromTypedi(container: ContainerInstance = Container.of()): ContainerLike {
  return {
    get<T>(cls: ClassType<T>): T {
      if (!container.has(cls)) container.set({ id: cls, type: cls });
      return container.get(cls);
    },
  };
}

/** The registry's default: typedi's global Container. */
export const typediContainer: ContainerLike = fromTypedi();
