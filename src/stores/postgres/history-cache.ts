/** How much history text (UTF-16 characters) a store keeps in the process across sessions. */
const HISTORY_CACHE_CHARS = 32 * 1024 * 1024;

/** Messages `first`..`last` of a session, as the items of a JSON array. */
export interface HistoryChunk {
  items: string;
  first: number;
  last: number;
}

export interface CachedHistory {
  pk: string;
  firstSeq: number;
  lastSeq: number;
  chunks: HistoryChunk[];
  chars: number;
}

/** Recently loaded sessions' history text, least recently used first, bounded in characters. */
export class HistoryCache {
  private readonly entries = new Map<string, CachedHistory>();
  private chars = 0;

  get(scope: string): CachedHistory | undefined {
    return this.entries.get(scope);
  }

  forget(scope: string): void {
    const entry = this.entries.get(scope);
    if (!entry) return;
    this.entries.delete(scope);
    this.chars -= entry.chars;
  }

  /**
   * Keeps a session's history text in this process, so the next load reads only the messages
   * appended since (history rows are only ever appended; a replace or a recreation renumbers them,
   * which the next load sees in the first message number or the row id). Bounded in characters.
   */
  keep(scope: string, read: { pk: string; firstSeq: number | null; chunks: HistoryChunk[] }, cached?: CachedHistory): void {
    const current = this.entries.get(scope);
    // Another load of this session finished first: keep its entry rather than interleave.
    if (current !== cached) return;
    if (current) this.chars -= current.chars;
    this.entries.delete(scope);
    const chars = read.chunks.reduce((n, c) => n + c.items.length, 0);
    if (read.firstSeq === null || read.chunks.length === 0 || chars > HISTORY_CACHE_CHARS / 4) return;
    this.entries.set(scope, {
      pk: read.pk,
      firstSeq: read.firstSeq,
      lastSeq: read.chunks[read.chunks.length - 1].last,
      chunks: read.chunks,
      chars,
    });
    this.chars += chars;
    for (const [oldest, entry] of this.entries) {
      if (this.chars <= HISTORY_CACHE_CHARS) break;
      this.entries.delete(oldest);
      this.chars -= entry.chars;
    }
  }
}
