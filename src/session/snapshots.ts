import type { MemoryEntry, MemoryIndex } from './memory-entry';
import type { Message } from './message';

export type { MemoryEntry, MemoryEntryType } from './memory-entry';

/** Identifies one conversation. `tenantId` partitions everything when given. */
export interface SessionKey {
  sessionId: string;
  tenantId?: string;
}

/** Identifies one long-term memory: one agent and one user (and tenant, when given). */
export interface MemoryKey {
  agentName: string;
  userId: string;
  tenantId?: string;
}

/** What a store keeps of a session. */
export interface SessionSnapshot {
  sessionId: string;
  userId?: string;
  tenantId?: string;
  state: Record<string, unknown>;
  history: Message[];
  userInput: string | null;
  /** A paused run waiting for approvals (serializable), owned by the agent runner. */
  pendingRun: unknown; // null when no run is paused
  /** Incremented by every save; lets a store or caller detect interleaved writes. */
  version: number;
  /**
   * Where the stored history ends, opaque: the same on every load until messages are stored, and
   * never repeated by the session (nor by one deleted and created again under its id). The runner
   * derives idempotency keys from it, so a run retried after its save failed gets the keys of its
   * first attempt. Optional for a custom store: the loaded history's length stands in.
   */
  historyMark?: string;
}

/**
 * What one turn changed in a session. Stores apply it atomically as a merge, so two turns of the
 * same session running at once lose no write: state is merged per key, appended messages are
 * appended in order, scalar fields are last-writer-wins.
 */
export interface SessionChanges {
  userId?: string;
  /**
   * The owner the writer loaded the session with (null: anonymous). When given, the save is refused
   * with `SessionForbiddenError`, writing nothing, if the stored session now has another owner (it
   * was deleted and claimed by someone else meanwhile); a missing session is created as usual.
   */
  owner?: string | null;
  set: Record<string, unknown>;
  deleted: string[];
  appended: Message[];
  /** When set, the history was replaced wholesale (`setConversationHistory`) before `appended`. */
  replacedHistory?: Message[];
  userInput?: string | null;
  pendingRun?: unknown; // null clears it
}

export interface MemorySnapshot {
  agentName: string;
  userId: string;
  tenantId?: string;
  entries: MemoryEntry[];
  summary: string | null;
  version: number;
  /** A search index the store keeps for this memory (not data: never serialized or compared). */
  index?: MemoryIndex;
  /**
   * Reads `entries` from the store when first needed (not data, like `index`): with it, an
   * AgentMemory searches through `index` and reads every entry only for a whole-memory read.
   */
  readEntries?: () => readonly MemoryEntry[];
}

/** What one turn changed in a memory: entries are appended, the summary is last-writer-wins. */
export interface MemoryChanges {
  added: MemoryEntry[];
  summary?: string | null;
}

export function isEmptySessionChanges(c: SessionChanges): boolean {
  return (
    c.userId === undefined &&
    Object.keys(c.set).length === 0 &&
    c.deleted.length === 0 &&
    c.appended.length === 0 &&
    c.replacedHistory === undefined &&
    c.userInput === undefined &&
    c.pendingRun === undefined
  );
}

export function isEmptyMemoryChanges(c: MemoryChanges): boolean {
  return c.added.length === 0 && c.summary === undefined;
}
