import { ToolDefinitionError, errorText } from '../errors/errors';
import type { ToolEntry } from './registered-tool';
import { buildSourcedEntry } from './sourced-entry';
import type { Builder } from './tool-builder';
import type { ToolSource } from './tool-source';

/**
 * The registry's remote sources: each one's tools built into entries after the local tools, and
 * built again when the source says its list changed. A refresh that fails keeps the last list.
 */
export class Sources {
  private readonly built = new Map<ToolSource, ToolEntry[]>();
  private readonly unsubscribe: (() => void)[] = [];
  private readonly listeners = new Set<() => void>();
  /** One refresh at a time per source; a change announced during one runs one more after it. */
  private readonly refreshing = new Map<ToolSource, Promise<void>>();
  private readonly again = new Set<ToolSource>();
  private closed = false;

  constructor(
    private readonly list: readonly ToolSource[],
    private readonly builder: Builder,
    private readonly local: readonly ToolEntry[],
    private readonly install: (entries: ReadonlyMap<string, ToolEntry>) => void,
  ) {}

  /** Lists every source (in parallel); a clash or an unreachable source rejects. */
  async start(): Promise<void> {
    const lists = await Promise.all(this.list.map((source) => this.build(source, true)));
    this.list.forEach((source, i) => this.built.set(source, lists[i]));
    this.install(this.merge(true));
    for (const source of this.list) this.unsubscribe.push(source.onListChanged(() => void this.refresh(source)));
  }

  onChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Lists the source again and installs the new tools; resolves when done (a failure is reported, never thrown). */
  refresh(source: ToolSource): Promise<void> {
    const running = this.refreshing.get(source);
    if (running) {
      this.again.add(source);
      return running;
    }
    const run = (async () => {
      try {
        do {
          this.again.delete(source);
          const entries = await this.build(source, false);
          if (this.closed) return;
          this.built.set(source, entries);
          this.install(this.merge(false));
          for (const listener of this.listeners) listener();
        } while (this.again.has(source));
      } catch (error) {
        source.onProblem?.(`refreshing the tool list failed, the last list stays: ${errorText(error)}`);
      } finally {
        this.refreshing.delete(source);
      }
    })();
    this.refreshing.set(source, run);
    return run;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const off of this.unsubscribe.splice(0)) off();
    await Promise.allSettled(this.list.map((source) => source.close()));
  }

  /** The source's tools as entries; one that cannot be served is left out and reported. */
  private async build(source: ToolSource, strict: boolean): Promise<ToolEntry[]> {
    const entries: ToolEntry[] = [];
    for (const tool of await source.list()) {
      try {
        entries.push(buildSourcedEntry(tool, this.builder));
      } catch (error) {
        if (strict && !(error instanceof ToolDefinitionError)) throw error;
        source.onProblem?.(`left out: ${errorText(error)}`);
      }
    }
    return entries;
  }

  /** Local tools first, then each source's in order; a clashing name fails the first build and is left out of a refresh. */
  private merge(strict: boolean): Map<string, ToolEntry> {
    const all = new Map(this.local.map((entry) => [entry.name, entry]));
    for (const source of this.list) {
      for (const entry of this.built.get(source) ?? []) {
        const other = all.get(entry.name);
        if (other === undefined) {
          all.set(entry.name, entry);
          continue;
        }
        const clash =
          `Duplicate tool name "${entry.name}": ${source.name} lists it and ` +
          `${other.origin ? other.origin.source : other.toolClass.name} has it too. Give the toolset a prefix or exclude the tool.`;
        if (strict) throw new ToolDefinitionError(clash);
        source.onProblem?.(`left out: ${clash}`);
      }
    }
    return all;
  }
}
