import { Container, ContainerInstance, type ServiceIdentifier } from 'typedi';
import type { ClassType } from '../metadata/types';

/** What the registry needs of a DI container: typedi's `Container` fits as it is. */
export interface ContainerLike {
  get<T>(cls: ClassType<T>): T;
  /**
   * What to do when `get` throws, ending the build error's message (the container's own words
   * come first). Without it the message names no container's API.
   */
  readonly unresolvedAdvice?: string;
}

/** The fix a typedi user is told when a tool's dependencies cannot be resolved. */
export const TYPEDI_ADVICE =
  'Register its dependencies (@Service() or Container.set(...)), or pass ToolRegistry.build({ tools, container }) with a container that provides them.';

/**
 * Resolves ONE tool class the way typedi would (constructor types, `@Inject`, property handlers,
 * the container as last argument) while every other identifier comes from the parent container.
 * The tool lives only in this throw-away scope: registering it in the parent would keep every tool
 * class (and instance) ever built in a process-wide list that typedi 0.10 searches linearly, which
 * made `ToolRegistry.build` quadratic. typedi's own child containers would not do either: they
 * clone the parent's services, so a tool would get fresh copies of its `@Service()` dependencies.
 */
class ToolScope extends ContainerInstance {
  constructor(
    private readonly parent: ContainerInstance,
    private readonly tool: ClassType,
  ) {
    super('toolwright:tool-scope'); // constructed directly, so typedi's registry of containers never sees it
    this.set({ id: tool, type: tool, transient: true });
  }

  override get<T>(id: ServiceIdentifier<T>): T {
    return id === this.tool ? super.get(id as ServiceIdentifier<T>) : this.parent.get(id);
  }
}

/**
 * A typedi container (the global one by default) as the registry's container. A tool class the
 * container already knows (`@Service()` on it, or `container.set(ToolClass, …)`) is taken from it
 * as typedi decides; any other tool class is constructed with its dependencies injected from the
 * container, without being registered in it, so building registries leaves the container as it was.
 */
export function fromTypedi(container: ContainerInstance = Container.of()): ContainerLike {
  return {
    get<T>(cls: ClassType<T>): T {
      if (container.has(cls)) return container.get(cls);
      return new ToolScope(container, cls).get(cls);
    },
    unresolvedAdvice: TYPEDI_ADVICE,
  };
}

/** The registry's default: typedi's global Container. */
export const typediContainer: ContainerLike = fromTypedi();
