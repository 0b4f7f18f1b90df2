import { randomUUID } from 'node:crypto';
import MiniSearch from 'minisearch';
import type { MemoryChanges, MemoryEntry, MemoryEntryType, MemorySnapshot } from './snapshots';

export interface AgentMemoryInit {
  agentName: string;
  userId: string;
  tenantId?: string;
  entries?: readonly MemoryEntry[];
  summary?: string | null;
}

export type MemorySearchResult = MemoryEntry & { score: number };

/**
 * Long-term memory of one agent about one user (and tenant): facts, learnings, preferences,
 * free-form memories and a summary. It only ever holds its own (agent, user) entries, so
 * `search` cannot return another user's memories.
 */
export class AgentMemory {
  readonly agentName: string;
  readonly userId: string;
  readonly tenantId?: string;
  private readonly entries: MemoryEntry[];
  private summary: string | null;
  private added: MemoryEntry[] = [];
  private summaryChanged = false;
  /** Built on the first search, then kept up to date; most turns never search. */
  private index?: MiniSearch<MemoryEntry>;

  constructor(init: AgentMemoryInit) {
    this.agentName = init.agentName;
    this.userId = init.userId;
    this.tenantId = init.tenantId;
    this.entries = [...(init.entries ?? [])];
    this.summary = init.summary ?? null;
  }

  static fromSnapshot(snapshot: MemorySnapshot): AgentMemory {
    return new AgentMemory(snapshot);
  }

  addFact(content: string, confidence = 1): MemoryEntry {
    if (!(confidence >= 0 && confidence <= 1)) throw new RangeError('confidence must be between 0 and 1');
    return this.add({ type: 'fact', content, confidence });
  }

  getFacts(): MemoryEntry[] {
    return this.ofType('fact');
  }

  addLearning(content: string, context?: string): MemoryEntry {
    return this.add(context === undefined ? { type: 'learning', content } : { type: 'learning', content, context });
  }

  getLearnings(): MemoryEntry[] {
    return this.ofType('learning');
  }

  updateSummary(text: string): void {
    this.summary = text;
    this.summaryChanged = true;
  }

  getSummary(): string | null {
    return this.summary;
  }

  addPreference(content: string, category = 'general'): MemoryEntry {
    return this.add({ type: 'preference', content, category });
  }

  getPreferences(category?: string): MemoryEntry[] {
    return this.ofType('preference').filter((e) => category === undefined || e.category === category);
  }

  remember(content: string, type: MemoryEntryType = 'general', metadata?: Record<string, unknown>): MemoryEntry {
    return this.add(metadata === undefined ? { type, content } : { type, content, metadata });
  }

  /** Every entry, oldest first. */
  getAll(): readonly MemoryEntry[] {
    return this.entries;
  }

  /**
   * Ranked full-text search (BM25 via MiniSearch, with prefix and light fuzzy matching) over
   * this memory's entries (content, category, context); best first, at most `limit`.
   */
  search(query: string, limit = 10): MemorySearchResult[] {
    if (!query.trim() || limit <= 0) return [];
    const byId = new Map(this.entries.map((e) => [e.id, e]));
    return this.searchIndex()
      .search(query, { prefix: true, fuzzy: 0.2, combineWith: 'OR' })
      .slice(0, limit)
      .map((hit) => ({ ...(byId.get(hit.id as string) as MemoryEntry), score: hit.score }));
  }

  /** The entries and summary change recorded since construction or the last call; resets them. */
  takeChanges(): MemoryChanges {
    const changes: MemoryChanges = { added: this.added };
    if (this.summaryChanged) changes.summary = this.summary;
    this.added = [];
    this.summaryChanged = false;
    return changes;
  }

  private add(fields: Omit<MemoryEntry, 'id' | 'createdAt'>): MemoryEntry {
    if (typeof fields.content !== 'string' || fields.content.length === 0) {
      throw new TypeError('memory content must be a non-empty string');
    }
    const entry: MemoryEntry = { id: randomUUID(), createdAt: new Date().toISOString(), ...fields };
    this.entries.push(entry);
    this.added.push(entry);
    this.index?.add(entry);
    return entry;
  }

  private ofType(type: MemoryEntryType): MemoryEntry[] {
    return this.entries.filter((e) => e.type === type);
  }

  private searchIndex(): MiniSearch<MemoryEntry> {
    if (!this.index) {
      this.index = new MiniSearch<MemoryEntry>({ fields: ['content', 'category', 'context'], idField: 'id' });
      this.index.addAll(this.entries);
    }
    return this.index;
  }
}
