import {
  Global,
  Inject,
  Injectable,
  Module,
  Scope,
  type DynamicModule,
  type OnApplicationShutdown,
  type OnModuleInit,
  type Provider,
  type Type,
} from '@nestjs/common';
import { DiscoveryModule, DiscoveryService, ModuleRef } from '@nestjs/core';
import { Agent } from '../agent/agent';
import type { AgentOptions } from '../agent/types';
import { ToolDefinitionError } from '../errors/errors';
import { isTool } from '../metadata/tool-info';
import { ToolRegistry, type ToolRegistryOptions } from '../registry/tool-registry';
import type { SessionStore } from '../stores/store';
import { SqliteStore, type SqliteStoreOptions } from '../stores/sqlite.store';
import { RedisStore, type RedisStoreOptions } from '../stores/redis.store';
import { PostgresStore, type PostgresStoreOptions } from '../stores/postgres.store';
import { fromNest, NEST_ADVICE } from './nest-container';

/** Where sessions live: a store you built, or the config of one (SQLite by default). */
export type StoreConfig = SessionStore | { sqlite: SqliteStoreOptions } | { redis: RedisStoreOptions } | { postgres: PostgresStoreOptions };

export interface ToolwrightModuleOptions extends Omit<ToolRegistryOptions, 'tools' | 'container'> {
  /** Default: `{ sqlite: {} }` (a SqliteStore at `./.toolwright/state.db`). */
  store?: StoreConfig;
}

export interface ToolwrightModuleAsyncOptions {
  imports?: DynamicModule['imports'];
  inject?: (string | symbol | Type)[];
  useFactory: (...args: never[]) => ToolwrightModuleOptions | Promise<ToolwrightModuleOptions>;
}

/** An Agent provider: the token to inject it by and its options (tools and store come from the module). */
export interface AgentProvider {
  provide: string | symbol | Type;
  inject?: (string | symbol | Type)[];
  useFactory: (
    ...args: never[]
  ) => Omit<AgentOptions, 'tools' | 'store' | 'container'> | Promise<Omit<AgentOptions, 'tools' | 'store' | 'container'>>;
}

/**
 * What `forFeature` provides. Tools listed here are providers of a module of their own: their
 * dependencies must come from `imports` or global modules. Tools listed in a feature module's own
 * `providers` (beside their services) need no listing at all: they are discovered.
 */
export interface ToolwrightFeature {
  tools?: readonly Type[];
  agents?: readonly AgentProvider[];
  imports?: NonNullable<DynamicModule['imports']>;
}

export const TOOLWRIGHT_OPTIONS = Symbol('toolwright:nest-options');
/** The module's SessionStore, injectable. */
export const TOOLWRIGHT_STORE = Symbol('toolwright:nest-store');

function openStore(config: StoreConfig | undefined): SessionStore {
  if (!config) return new SqliteStore();
  if ('sqlite' in config) return new SqliteStore(config.sqlite);
  if ('redis' in config) return new RedisStore(config.redis);
  if ('postgres' in config) return new PostgresStore(config.postgres);
  return config;
}

/**
 * The one ToolRegistry of the app: every `@Tool` class some module provides, found by Nest's
 * DiscoveryService, resolved by Nest's injector (`fromNest`). Built when first injected (Nest's
 * scan is done by then: every provider is known); at module init every singleton tool is checked
 * to resolve, so a missing dependency fails `app.init()` naming the tool.
 */
@Injectable()
export class ToolwrightHost implements OnModuleInit, OnApplicationShutdown {
  private built?: ToolRegistry;
  readonly store: SessionStore;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly moduleRef: ModuleRef,
    @Inject(TOOLWRIGHT_OPTIONS) private readonly options: ToolwrightModuleOptions,
  ) {
    this.store = openStore(options.store);
  }

  get registry(): ToolRegistry {
    if (this.built) return this.built;
    const { store: _store, ...registryOptions } = this.options;
    return (this.built = ToolRegistry.build({ ...registryOptions, tools: this.toolClasses(), container: fromNest(this.moduleRef) }));
  }

  /** Each `@Tool` class provided by some module, once. */
  toolClasses(): Type[] {
    const found = new Set<Type>();
    for (const wrapper of this.discovery.getProviders()) {
      const cls = wrapper.metatype as Type | null;
      if (cls && !wrapper.inject && isTool(cls)) found.add(cls);
    }
    return [...found];
  }

  onModuleInit(): void {
    void this.registry; // built now if nothing injected it
    for (const cls of this.toolClasses()) {
      if (this.moduleRef.introspect(cls).scope !== Scope.DEFAULT) continue; // resolved per run
      let instance: unknown;
      try {
        instance = this.moduleRef.get(cls, { strict: false });
      } catch (error) {
        throw new ToolDefinitionError(
          `Could not resolve ${cls.name} from Nest: ${String((error as Error).message).replace(/[.\s]+$/, '')}. ${NEST_ADVICE}`,
        );
      }
      if (!(instance instanceof cls))
        throw new ToolDefinitionError(
          `Nest gave ${cls.name} no instance of the class. Provide the class itself (not useValue/useFactory).`,
        );
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}

@Global()
@Module({})
export class ToolwrightModule {
  /** The app's toolwright: the registry (injectable as `ToolRegistry`), the store, and its options. */
  static forRoot(options: ToolwrightModuleOptions = {}): DynamicModule {
    return ToolwrightModule.root([{ provide: TOOLWRIGHT_OPTIONS, useValue: options }]);
  }

  static forRootAsync(options: ToolwrightModuleAsyncOptions): DynamicModule {
    const module = ToolwrightModule.root([{ provide: TOOLWRIGHT_OPTIONS, useFactory: options.useFactory, inject: options.inject ?? [] }]);
    return { ...module, imports: [...(module.imports ?? []), ...(options.imports ?? [])] };
  }

  private static root(optionsProvider: Provider[]): DynamicModule {
    return {
      module: ToolwrightModule,
      global: true,
      imports: [DiscoveryModule],
      providers: [
        ...optionsProvider,
        ToolwrightHost,
        { provide: ToolRegistry, useFactory: (host: ToolwrightHost) => host.registry, inject: [ToolwrightHost] },
        { provide: TOOLWRIGHT_STORE, useFactory: (host: ToolwrightHost) => host.store, inject: [ToolwrightHost] },
      ],
      exports: [ToolwrightHost, ToolRegistry, TOOLWRIGHT_STORE],
    };
  }

  /**
   * A feature module's tools (as providers of the module that imports this, with their services
   * beside them) and Agents injectable by their token, built with the app's registry and store.
   */
  static forFeature(feature: readonly Type[] | ToolwrightFeature): DynamicModule {
    const {
      tools = [],
      agents = [],
      imports = [],
    }: ToolwrightFeature = Array.isArray(feature) ? { tools: feature as readonly Type[] } : (feature as ToolwrightFeature);
    const agentProviders: Provider[] = agents.map((agent) => ({
      provide: agent.provide,
      inject: [ToolwrightHost, ...(agent.inject ?? [])],
      useFactory: async (host: ToolwrightHost, ...deps: never[]) => {
        const options = await agent.useFactory(...deps);
        return new Agent({ ...options, tools: host.registry, store: host.store });
      },
    }));
    return {
      module: ToolwrightFeatureModule,
      imports: [...imports],
      providers: [...tools, ...agentProviders],
      exports: [...tools, ...agents.map((a) => a.provide)],
    };
  }
}

@Module({})
export class ToolwrightFeatureModule {}
