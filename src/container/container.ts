import { Container } from 'typedi';
import type { ClassType } from '../metadata/types';

/** What the registry needs of a DI container: typedi's `Container` fits as it is. */
export interface ContainerLike {
  get<T>(cls: ClassType<T>): T;
}

/**
 * typedi's global Container, registering a tool class on first use so that tools need only
 * `@Tool` (which makes TypeScript emit the constructor types typedi injects from).
 */
export const typediContainer: ContainerLike = {
  get<T>(cls: ClassType<T>): T {
    if (!Container.has(cls)) Container.set({ id: cls, type: cls });
    return Container.get(cls);
  },
};
