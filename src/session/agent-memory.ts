import { randomUUID } from 'node:crypto';
import { ToolwrightError } from '../errors/errors';
import { CachedMemoryIndex } from './cached-memory-index';
import type { MemoryIndex, MemorySearchResult } from './memory-entry';
import type { MemoryChanges, MemoryEntry, MemoryEntryType, MemoryKey, MemorySnapshot } from './snapshots';

export interface AgentMemoryInit {
  agentName: string;
  userId: string;
  tenantId?: string;
  entries?: readonly MemoryEntry[];
  summary?: string | null;
  /** The store's search index over `entries` (see MemoryIndex). */
  index?: MemoryIndex;
  /**
   * With `index`: reads the stored entries when first needed instead of `entries` (a store that can
   * read synchronously, SQLite), so a search or a write never loads the whole memory.
   */
  readEntries?: () => readonly MemoryEntry[];
}

export type { MemorySearchResult } from './memory-entry';

/**
 * A memory was read (getFacts, search, getSummary…) during a run that did not load it: the tool
 * must declare `@Tool({ memory: true })` (or the agent `loadMemory: true`). Adding to memory
 * needs no declaration.
 */
export class MemoryNotLoadedError extends ToolwrightError {
  constructor(readonly read: string) {
    super(
      'MEMORY_NOT_LOADED',
      `AgentMemory.${read}() was called but this run did not load the memory. ` +
        'Declare @Tool({ memory: true }) on tools that read memory (or pass loadMemory: true to the Agent).',
    );
  }
}

/**
 * Long-term memory of one agent about one user (and tenant): facts, learnings, preferences,
 * free-form memories and a summary. It only ever holds its own (agent, user) entries, so
 * `search` cannot return another user's memories.
 */
export class AgentMemory {
  readonly agentName: string;
  readonly userId: string;
  readonly tenantId?: string;
  private entries: MemoryEntry[];
  private summary: string | null;
  private added: MemoryEntry[] = [];
  private summaryChanged = false;
  /** Built on the first search, then kept up to date; most turns never search. */
  private index?: CachedMemoryIndex;
  /** The store's index over the stored entries; then the local index covers only entries after `stored`. */
  private storeIndex?: MemoryIndex;
  private stored = 0;
  /** Reads the stored entries not read yet; until then `entries` holds only those added here. */
  private unread?: () => readonly MemoryEntry[];
  private loadedFlag = true;

  constructor(init: AgentMemoryInit) {
    this.agentName = init.agentName;
    this.userId = init.userId;
    this.tenantId = init.tenantId;
    this.summary = init.summary ?? null;
    if (init.index && init.readEntries) {
      this.storeIndex = init.index;
      this.unread = init.readEntries;
      this.entries = [];
      return;
    }
    this.entries = [...(init.entries ?? [])];
    if (init.index) {
      this.storeIndex = init.index;
      this.stored = this.entries.length;
    }
  }

  static fromSnapshot(snapshot: MemorySnapshot): AgentMemory {
    return new AgentMemory(snapshot);
  }

  /**
   * A memory whose stored entries are not loaded (a run that declared no memory use): additions
   * are recorded and saved as usual; reads throw MemoryNotLoadedError until `hydrate`.
   */
  static unloaded(key: MemoryKey): AgentMemory {
    const memory = new AgentMemory(key);
    memory.loadedFlag = false;
    return memory;
  }

  /** False for an `unloaded` memory until `hydrate`. */
  get loaded(): boolean {
    return this.loadedFlag;
  }

  /** Fills an unloaded memory from the store; entries added meanwhile stay, after the stored ones. */
  hydrate(snapshot: MemorySnapshot | undefined): void {
    if (this.loadedFlag) return;
    this.loadedFlag = true;
    if (!this.summaryChanged) this.summary = snapshot?.summary ?? null;
    if (snapshot?.index && snapshot.readEntries) {
      // Entries added meanwhile stay local; the stored ones are read when a read needs them all.
      this.storeIndex = snapshot.index;
      this.unread = snapshot.readEntries;
      return;
    }
    const stored = snapshot?.entries ?? [];
    this.entries = stored.length ? [...stored, ...this.entries] : this.entries;
    this.index = undefined;
    if (snapshot?.index) {
      this.storeIndex = snapshot.index;
      this.stored = stored.length;
    }
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
    if (!this.loadedFlag && !this.summaryChanged) throw new MemoryNotLoadedError('getSummary');
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
    if (!this.loadedFlag) throw new MemoryNotLoadedError('getAll');
    return this.all();
  }

  /**
   * Ranked full-text search (BM25 as MiniSearch scores it, with prefix and light fuzzy matching) over
   * this memory's entries (content, category, context); best first, at most `limit`.
   */
  search(query: string, limit = 10): MemorySearchResult[] {
    if (!this.loadedFlag) throw new MemoryNotLoadedError('search');
    if (!query.trim() || limit <= 0) return [];
    const local = this.entries.length > this.stored ? this.localSearch(query, limit) : [];
    if (!this.storeIndex) return local;
    // The store's index ranks what is stored; entries added since the load are ranked locally.
    const hits = this.storeIndex.search(query, limit);
    if (local.length === 0) return hits;
    const seen = new Set(hits.map((h) => h.id));
    return [...hits, ...local.filter((h) => !seen.has(h.id))].sort((a, b) => b.score - a.score).slice(0, limit);
  }

  private localSearch(query: string, limit: number): MemorySearchResult[] {
    return this.searchIndex().search(query, limit);
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
    this.index?.add([entry]);
    return entry;
  }

  private ofType(type: MemoryEntryType): MemoryEntry[] {
    if (!this.loadedFlag)
      throw new MemoryNotLoadedError(type === 'fact' ? 'getFacts' : type === 'learning' ? 'getLearnings' : 'getPreferences');
    return this.all().filter((e) => e.type === type);
  }

  /** Every entry: reads the stored ones first if the store left them unread. */
  private all(): MemoryEntry[] {
    if (this.unread) {
      const stored = this.unread();
      this.unread = undefined;
      // The local index (if built) keeps covering the same entries: those after `stored`.
      this.entries = [...stored, ...this.entries];
      this.stored = stored.length;
    }
    return this.entries;
  }

  private searchIndex(): CachedMemoryIndex {
    this.index ??= new CachedMemoryIndex(this.stored ? this.entries.slice(this.stored) : this.entries, 0);
    return this.index;
  }
}
