import { ToolwrightConfigError } from '../errors/errors';
import { ToolRegistry } from '../registry/tool-registry';
import { InMemoryStore } from '../stores/in-memory.store';
import { SqliteStore } from '../stores/sqlite.store';
import type { SessionStore } from '../stores/store';
import { ToolCatalog } from './catalog';
import { planOutput, type OutputPlan } from './final-output';
import { HookSet } from './hooks';
import { ModelTurns } from './model-turn';
import type { RunEnd } from './run-end';
import { RunPersistence } from './run-persistence';
import { StepJournal, STEPS_NAMESPACE } from './step-journal';
import { ToolRunner } from './tool-runner';
import type { AgentOptions } from './types';

/** What an Agent runs with, built once from its options (their defaults applied here). */
export interface AgentParts {
  registry: ToolRegistry;
  store: SessionStore;
  maxTurns: number;
  catalog: ToolCatalog;
  hooks: HookSet;
  runs: RunPersistence;
  tools: ToolRunner;
  model: ModelTurns;
  /** The structured final answer (`output`), and how the model is told it. */
  output?: OutputPlan;
  /** Where the run's end saves and who hears of it (see `finish`). */
  end: RunEnd;
  stopWhen: AgentOptions['stopWhen'];
  tracing: AgentOptions['tracing'];
}

export function agentParts(options: AgentOptions<unknown>): AgentParts {
  const registry =
    options.tools instanceof ToolRegistry
      ? options.tools
      : ToolRegistry.build({ tools: options.tools, container: options.container, tracing: options.tracing });
  const store = options.store ?? new SqliteStore(); // the embedded default; opened on first use
  const maxTurns = positiveInt('maxTurns', options.maxTurns ?? 10);
  const catalog = new ToolCatalog(registry, options.catalog);
  const hooks = new HookSet(options.name, options);
  const runs = new RunPersistence(store, options.name, {
    instructions: options.instructions,
    historyLimit: options.historyLimit,
    memoryAtStart: options.loadMemory ?? (typeof options.instructions === 'function' && options.instructions.length >= 2),
    resumeLeaseMs: options.resumeLeaseMs ?? 10 * 60_000,
  });
  const steps = stepJournal(options, store);
  const tools = new ToolRunner(
    registry,
    hooks,
    {
      toolTimeoutMs: options.toolTimeoutMs,
      maxConcurrency: positiveInt('maxConcurrency', options.maxConcurrency ?? 4),
      retryBudget: options.retryBudget ?? 2,
      retryBudgets: options.retryBudgets,
      errorPolicy: options.errorPolicy ?? 'throw',
      repairToolCall: options.repairToolCall,
      steps,
      sampler: options.sampling === true ? options.model : options.sampling || undefined,
    },
    (state) => runs.loadMemory(state),
  );
  const output = options.output ? planOutput(options.output, options.name, options.model) : undefined;
  if (output && !output.native && registry.has(output.tool.name))
    throw new ToolwrightConfigError(
      `agent "${options.name}": a tool is named "${output.tool.name}", the name its model answers \`output\` through`,
    );
  const model = new ModelTurns(options.model, options.tracing, steps, output);
  const end = { runs, hooks, steps };
  const { stopWhen, tracing } = options;
  return { registry, store, maxTurns, catalog, hooks, runs, tools, model, output, end, stopWhen, tracing };
}

/** Durable steps (see StepJournal); none for a store that keeps nothing past the process. */
function stepJournal(options: AgentOptions<unknown>, store: SessionStore): StepJournal | undefined {
  const claims = (store as Partial<Pick<SqliteStore, 'idempotency'>>).idempotency;
  if (!(options.durableSteps ?? !(store instanceof InMemoryStore)) || claims === undefined) return undefined;
  return new StepJournal(claims.call(store, STEPS_NAMESPACE), options.name, positiveInt('stepLeaseMs', options.stepLeaseMs ?? 30_000));
}

function positiveInt(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new ToolwrightConfigError(`${name} must be a positive integer, got ${value}`);
  return value;
}
