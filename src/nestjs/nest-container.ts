import { AsyncLocalStorage } from 'node:async_hooks';
import { ContextIdFactory, type ModuleRef } from '@nestjs/core';
import { Scope, type Type } from '@nestjs/common';
import type { ContainerLike } from '../container/container';
import type { ClassType } from '../metadata/types';

type ContextId = ReturnType<typeof ContextIdFactory.create>;

/** The Nest context a run is in: the HTTP request's context id (set by `runInRequestScope`). */
const requestScope = new AsyncLocalStorage<ContextId>();

/** Runs not inside a request scope get one context id per AgentContext (one per session's run). */
const contextIds = new WeakMap<object, ContextId>();

/** The fix a Nest user is told when a tool cannot be resolved: Nest's words, no typedi. */
export const NEST_ADVICE =
  "Add the tool to a module's providers (or ToolwrightModule.forFeature([...])) and make its dependencies available in that module.";

/**
 * Runs `fn` in the Nest request scope of `request`: request-scoped providers a tool resolves during
 * `fn` (an agent run, an MCP call) are the ones this request's controllers and guards got, and
 * `@Inject(REQUEST)` gives them `request`. The MCP and chat controllers do this for you.
 */
export function runInRequestScope<T>(moduleRef: ModuleRef, request: object, fn: () => T): T {
  const contextId = ContextIdFactory.getByRequest(request);
  moduleRef.registerRequestByContextId(request, contextId);
  return requestScope.run(contextId, fn);
}

function contextIdFor(context: unknown): ContextId {
  const current = requestScope.getStore();
  if (current) return current;
  if (!context || typeof context !== 'object') return ContextIdFactory.create();
  let id = contextIds.get(context);
  if (!id) contextIds.set(context, (id = ContextIdFactory.create()));
  return id;
}

/** Whether Nest builds the class once (DEFAULT scope, all of its dependencies static). */
function isStatic(moduleRef: ModuleRef, cls: ClassType): boolean {
  return moduleRef.introspect(cls as Type).scope === Scope.DEFAULT;
}

type Executable = { execute(args: unknown, context: unknown, memory: unknown): unknown };

/**
 * Nest's container as the registry's container. `get(ToolClass)` answers at once with a stand-in
 * of the tool (its prototype, so `definition()` and the @Tool metadata are the class's) whose
 * `execute` takes the real instance from Nest at call time: the singleton (checked to resolve at
 * module init), or for a request-scoped or transient tool (or one depending on a request-scoped
 * provider) `moduleRef.resolve(ToolClass, contextId)` with the run's context id. A registry can
 * so be built while Nest is still constructing providers, and no tool is half-constructed.
 */
export function fromNest(moduleRef: ModuleRef): ContainerLike {
  return {
    get<T>(cls: ClassType<T>): T {
      moduleRef.introspect(cls as Type); // throws Nest's UnknownElementException for a class no module provides
      let singleton: Executable | undefined;
      const target = async (context: unknown): Promise<Executable> => {
        if (singleton) return singleton;
        if (isStatic(moduleRef, cls)) return (singleton = moduleRef.get<unknown, Executable>(cls, { strict: false }));
        return moduleRef.resolve<unknown, Executable>(cls, contextIdFor(context), { strict: false });
      };
      const standIn = Object.create(cls.prototype as object) as Executable;
      Object.defineProperty(standIn, 'execute', {
        value: async (args: unknown, context: unknown, memory: unknown) => (await target(context)).execute(args, context, memory),
      });
      return standIn as T;
    },
    unresolvedAdvice: NEST_ADVICE,
  };
}
