import { ToolwrightConfigError } from '../errors/errors';
import type { RegisteredTool, ToolRegistry } from '../registry/tool-registry';
import type { ToolDefinition } from '../metadata/json-schema';
import type { AgentContext } from '../session/agent-context';
import { editDistance, fuzzyDistance, lowerBound } from '../session/memory-search';

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

/**
 * English function words: they carry no intent, match most descriptions, and made ranking a long
 * message score nearly every tool. Dropped from the index and from queries.
 */
const STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by can could ' +
    'did do does doing down during each few for from further had has have having he her here hers herself him himself his how i if ' +
    'in into is it its itself just me more most my myself no nor not now of off on once only or other our ours ourselves out over ' +
    'own please same she should so some such than that the their theirs them themselves then there these they this those through ' +
    'to too under until up very was we were what when where which while who whom why will with would yet you your yours yourself ' +
    'yourselves hi hello hey thanks thank ok okay also maybe like want need get got still'
  ).split(' '),
);

const SEPARATORS = /[\n\r\p{Z}\p{P}]+/u;

function words(text: string): string[] {
  const out: string[] = [];
  for (const w of text.split(SEPARATORS)) {
    const t = w.toLowerCase();
    if (t && !STOP_WORDS.has(t)) out.push(t);
  }
  return out;
}

// BM25 parameters (MiniSearch's defaults) and field boosts: a word of the tool's name counts double.
const K1 = 1.2;
const B = 0.7;
const FIELDS = [
  { boost: 2, text: (t: RegisteredTool) => t.name },
  { boost: 1, text: (t: RegisteredTool) => t.definition.description },
  { boost: 1, text: (t: RegisteredTool) => t.tags.join(' ') },
];
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;

/**
 * BM25 over tool names, descriptions and tags, built once per registry: per term, the tools it
 * occurs in with their field-normalized weight. A query adds `idf × weight` into one score array
 * for the tools its terms occur in, so ranking costs the postings of the message's words (stop
 * words dropped), not the catalog. A term also matches as a prefix (3+ letters) and, when it
 * matches no word at all, words within a small typo distance (5+ letters).
 */
class ToolSearchIndex {
  private readonly postings = new Map<string, { tools: Int32Array; weights: Float64Array; idf: number }>();
  /** Sorted, for prefix ranges. */
  private readonly terms: string[];
  /** Words by length and first letter: typo candidates (a typo in the first letter is not matched). */
  private readonly byLength = new Map<string, string[]>();
  private readonly scores: Float64Array;

  constructor(private readonly tools: readonly RegisteredTool[]) {
    const n = tools.length;
    const perField = FIELDS.map((f) => tools.map((t) => words(f.text(t))));
    const avg = perField.map((docs) => docs.reduce((sum, d) => sum + d.length, 0) / Math.max(1, n) || 1);
    const build = new Map<string, Map<number, number>>();
    perField.forEach((docs, f) => {
      docs.forEach((doc, i) => {
        const tf = new Map<string, number>();
        for (const w of doc) tf.set(w, (tf.get(w) ?? 0) + 1);
        for (const [w, count] of tf) {
          const weight = (FIELDS[f].boost * (count * (K1 + 1))) / (count + K1 * (1 - B + (B * doc.length) / avg[f]));
          let list = build.get(w);
          if (!list) build.set(w, (list = new Map()));
          list.set(i, (list.get(i) ?? 0) + weight);
        }
      });
    });
    for (const [w, list] of build) {
      const idf = Math.log(1 + (n - list.size + 0.5) / (list.size + 0.5));
      this.postings.set(w, { tools: Int32Array.from(list.keys()), weights: Float64Array.from(list.values()), idf });
      const key = `${w.length}:${w[0]}`;
      const same = this.byLength.get(key);
      if (same) same.push(w);
      else this.byLength.set(key, [w]);
    }
    this.terms = [...build.keys()].sort();
    this.scores = new Float64Array(n);
  }

  /** Tool names, best first: the best `head` sorted now, the rest only if a caller reads past them. */
  search(query: string, head: number): Ranking {
    const scores = this.scores;
    const touched: number[] = [];
    const add = (term: string, factor: number) => {
      const p = this.postings.get(term)!;
      for (let k = 0; k < p.tools.length; k++) {
        const i = p.tools[k];
        if (scores[i] === 0) touched.push(i);
        scores[i] += p.idf * p.weights[k] * factor;
      }
    };
    for (const q of new Set(words(query))) {
      let matched = false;
      if (this.postings.has(q)) {
        add(q, 1);
        matched = true;
      }
      if (q.length >= 3) {
        for (let j = lowerBound(this.terms, q); j < this.terms.length && this.terms[j].startsWith(q); j++) {
          if (this.terms[j] === q) continue;
          add(this.terms[j], PREFIX_WEIGHT * (q.length / this.terms[j].length));
          matched = true;
        }
      }
      const d = q.length >= 5 ? fuzzyDistance(q) : 0;
      if (!matched && d > 0) {
        for (let len = q.length - d; len <= q.length + d; len++) {
          for (const w of this.byLength.get(`${len}:${q[0]}`) ?? []) {
            const distance = editDistance(q, w, d);
            if (distance <= d) add(w, FUZZY_WEIGHT / (1 + distance));
          }
        }
      }
    }
    const hits = Float64Array.from(touched, (i) => scores[i]);
    for (const i of touched) scores[i] = 0;
    return new Ranking(this.tools, touched, hits, head);
  }
}

/**
 * Search hits in rank order. Sorting every hit of a long message cost more than scoring them;
 * a catalog reads only its top k (plus the few its filters refuse), so only the best `head`
 * are sorted up front, and the rest once a reader goes past them.
 */
class Ranking {
  /** Tool indexes in rank order, as far as sorted; `rest` holds hit positions not sorted yet. */
  private sorted: number[];
  private rest: number[] | undefined;

  constructor(
    private readonly tools: readonly RegisteredTool[],
    private readonly hits: number[],
    private readonly scores: Float64Array,
    head: number,
  ) {
    let order = hits.map((_, k) => k);
    if (order.length > head * 4) {
      // The head-th best score (a native numeric sort, no comparator): everything at least as good is sorted now.
      const threshold = Float64Array.from(scores).sort()[scores.length - head];
      this.rest = order.filter((k) => scores[k] < threshold);
      order = order.filter((k) => scores[k] >= threshold);
    }
    this.sorted = order.sort(this.better).map((k) => hits[k]);
  }

  private readonly better = (a: number, b: number) => this.scores[b] - this.scores[a] || this.hits[a] - this.hits[b];

  *names(): Generator<string> {
    for (let k = 0; k < this.sorted.length; k++) yield this.tools[this.sorted[k]].name;
    if (!this.rest) return;
    const rest = this.rest.sort(this.better).map((k) => this.hits[k]);
    const from = this.sorted.length;
    this.sorted = [...this.sorted, ...rest];
    this.rest = undefined;
    for (let k = from; k < this.sorted.length; k++) yield this.tools[this.sorted[k]].name;
  }
}

/** One search index per registry (built on first use, shared by every agent over it). */
const indexes = new WeakMap<ToolRegistry, ToolSearchIndex>();

function searchIndex(registry: ToolRegistry): ToolSearchIndex {
  let index = indexes.get(registry);
  if (!index) {
    index = new ToolSearchIndex(registry.tools());
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
  private all: CatalogSelection;
  private allTools: readonly RegisteredTool[];
  private readonly byTags = new Map<string, readonly RegisteredTool[]>();
  private readonly dynamic: boolean;
  /** Ranked tool names per message, most recent last: a run ranks its message once, not on every model turn. */
  private readonly ranked = new Map<string, Ranking>();

  constructor(
    private readonly registry: ToolRegistry,
    private readonly options: CatalogOptions = {},
  ) {
    this.all = { definitions: registry.definitions() };
    this.allTools = registry.tools();
    this.dynamic = options.tags !== undefined || options.topK !== undefined || options.authorize !== undefined || registry.gated;
    if (options.topK !== undefined) {
      if (!Number.isInteger(options.topK) || options.topK < 1)
        throw new ToolwrightConfigError(`catalog.topK must be a positive integer, got ${options.topK}`);
      searchIndex(registry);
    }
    for (const name of options.always ?? []) {
      if (!registry.has(name)) throw new ToolwrightConfigError(`catalog.always names "${name}", which is not a registered tool.`);
    }
  }

  /** The tools to offer for this turn; `query` is the user's message, `tags` narrows the agent's tags for one run. */
  select(context: AgentContext, query: string, tags?: readonly string[]): CatalogSelection | Promise<CatalogSelection> {
    // A remote server's list changed: what was computed from the old list is computed again.
    if (this.registry.definitions() !== this.all.definitions) this.reload();
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
      for (const name of this.rank(query, limit).names()) {
        if (chosen.length >= limit) break;
        await consider(this.registry.describe(name));
      }
    }
    return { definitions: chosen.map((t) => t.definition), offered: new Set(chosen.map((t) => t.name)) };
  }

  private rank(query: string, head: number): Ranking {
    let ranking = this.ranked.get(query);
    if (ranking) {
      this.ranked.delete(query);
    } else {
      ranking = searchIndex(this.registry).search(query, head + 8);
      if (this.ranked.size >= 64) this.ranked.delete(this.ranked.keys().next().value as string);
    }
    this.ranked.set(query, ranking);
    return ranking;
  }

  private reload(): void {
    this.all = { definitions: this.registry.definitions() };
    this.allTools = this.registry.tools();
    this.byTags.clear();
    this.ranked.clear();
    indexes.delete(this.registry);
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
    // The registry's gate (isEnabled, the registry's authorize) first: the same answer as on every other surface.
    if (this.registry.gated && !(await this.registry.permits(tool.name, context))) return false;
    return this.options.authorize ? !!(await this.options.authorize(tool, context)) : true;
  }
}
