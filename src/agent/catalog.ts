import MiniSearch from 'minisearch';
import { ToolwrightConfigError } from '../errors/errors';
import type { RegisteredTool, ToolRegistry } from '../registry/tool-registry';
import type { ToolDefinition } from '../schema/json-schema';
import type { AgentContext } from '../session/agent-context';

export interface CatalogOptions {
  /** Offer only tools carrying at least one of these tags (`@Tool({ tags })`). Default: every tool. */
  tags?: readonly string[];
  /**
   * For large catalogs: offer only the best `topK` tools of a ranked search over names,
   * descriptions and tags for the user's message (plus `always`). Default: no search.
   */
  topK?: number;
  /** Tool names offered whatever the search says (still subject to tags, isEnabled and authorize). */
  always?: readonly string[];
  /** Authorization with the real user's context; `false` hides the tool (and refuses a call to it). */
  authorize?: (tool: RegisteredTool, context: AgentContext) => boolean | Promise<boolean>;
}

/** The tools offered for one model turn. `offered` is undefined when every registered tool is offered. */
export interface CatalogSelection {
  readonly definitions: readonly ToolDefinition[];
  readonly offered?: ReadonlySet<string>;
}

interface SearchDoc {
  id: string;
  words: string;
  description: string;
  tags: string;
}

/** One search index per registry (built on first use, shared by every agent over it). */
const indexes = new WeakMap<ToolRegistry, MiniSearch<SearchDoc>>();

function searchIndex(registry: ToolRegistry): MiniSearch<SearchDoc> {
  let index = indexes.get(registry);
  if (!index) {
    index = new MiniSearch<SearchDoc>({ fields: ['words', 'description', 'tags'], idField: 'id' });
    index.addAll(
      registry.tools().map((t) => ({
        id: t.name,
        words: t.name.replace(/[_-]+/g, ' '),
        description: t.definition.description,
        tags: t.tags.join(' '),
      })),
    );
    indexes.set(registry, index);
  }
  return index;
}

/**
 * Per-turn tool selection: tags, each tool's `isEnabled(context)`, an `authorize` callback (all
 * with the real user's context), and optionally the top-k of a ranked local search. Everything
 * that does not depend on the turn (tag lists, the search index) is computed once.
 */
export class ToolCatalog {
  private readonly all: CatalogSelection;
  private readonly allTools: readonly RegisteredTool[];
  private readonly byTags = new Map<string, readonly RegisteredTool[]>();
  private readonly dynamic: boolean;

  constructor(
    private readonly registry: ToolRegistry,
    private readonly options: CatalogOptions = {},
  ) {
    this.all = { definitions: registry.definitions() };
    this.allTools = registry.tools();
    this.dynamic =
      options.tags !== undefined ||
      options.topK !== undefined ||
      options.authorize !== undefined ||
      this.allTools.some((t) => typeof t.instance.isEnabled === 'function');
    if (options.topK !== undefined) {
      if (!Number.isInteger(options.topK) || options.topK < 1) throw new ToolwrightConfigError(`catalog.topK must be a positive integer, got ${options.topK}`);
      searchIndex(registry);
    }
    for (const name of options.always ?? []) {
      if (!registry.has(name)) throw new ToolwrightConfigError(`catalog.always names "${name}", which is not a registered tool.`);
    }
  }

  /** The tools to offer for this turn; `query` is the user's message, `tags` narrows the agent's tags for one run. */
  select(context: AgentContext, query: string, tags?: readonly string[]): CatalogSelection | Promise<CatalogSelection> {
    if (!this.dynamic && tags === undefined) return this.all;
    return this.compute(context, query, tags ?? this.options.tags);
  }

  private async compute(context: AgentContext, query: string, tags: readonly string[] | undefined): Promise<CatalogSelection> {
    const tagged = this.tagged(tags);
    const allowed = tags === undefined ? undefined : new Set(tagged.map((t) => t.name));
    const chosen: RegisteredTool[] = [];
    const seen = new Set<string>();
    const consider = async (tool: RegisteredTool) => {
      if (seen.has(tool.name)) return;
      seen.add(tool.name);
      if (allowed && !allowed.has(tool.name)) return;
      if (await this.permitted(tool, context)) chosen.push(tool);
    };

    for (const name of this.options.always ?? []) await consider(this.registry.describe(name));
    const topK = this.options.topK;
    if (topK === undefined) {
      for (const tool of tagged) await consider(tool);
    } else if (query.trim()) {
      const limit = chosen.length + topK;
      // Ranked hits in order; filters run only on hits, so the cost follows the search, not the catalog.
      for (const hit of searchIndex(this.registry).search(query, { prefix: true, fuzzy: 0.2, boost: { words: 2 }, combineWith: 'OR' })) {
        if (chosen.length >= limit) break;
        await consider(this.registry.describe(hit.id as string));
      }
    }
    return { definitions: chosen.map((t) => t.definition), offered: new Set(chosen.map((t) => t.name)) };
  }

  private tagged(tags: readonly string[] | undefined): readonly RegisteredTool[] {
    if (tags === undefined) return this.allTools;
    const key = JSON.stringify([...tags].sort());
    let list = this.byTags.get(key);
    if (!list) {
      list = this.allTools.filter((t) => t.tags.some((tag) => tags.includes(tag)));
      this.byTags.set(key, list);
    }
    return list;
  }

  private async permitted(tool: RegisteredTool, context: AgentContext): Promise<boolean> {
    if (tool.instance.isEnabled && !(await tool.instance.isEnabled(context))) return false;
    return this.options.authorize ? !!(await this.options.authorize(tool, context)) : true;
  }
}
