import { randomUUID } from 'node:crypto';
import { StoreUnavailableError, ToolwrightError } from '../../errors/errors';
import { guard } from '../snapshot-rows';
import type { SqliteConnection, SqliteStatement } from '../sqlite/driver';
import { ListeningChannels } from './listening-channels';

/** How often a SQLite process with subscribers asks whether another connection wrote to the file (ms). */
export const SQLITE_POLL_MS = 25;
/** A SQLite file keeps the last SQLITE_KEPT_MESSAGES messages, none older than SQLITE_KEPT_MS. */
export const SQLITE_KEPT_MESSAGES = 256;
export const SQLITE_KEPT_MS = 60_000;

/**
 * SQLite processes sharing one file: a message is a row of `channel_messages` (ids never reused),
 * and a process with subscribers polls, every SQLITE_POLL_MS, `PRAGMA data_version`, which changes
 * only when another connection committed; only then does it read the rows after the last it saw.
 * Nothing is polled while nobody listens, and a publish prunes what no listener can still need
 * (older than SQLITE_KEPT_MS, or beyond the last SQLITE_KEPT_MESSAGES). This process's own
 * subscribers hear its messages directly, as in the in-memory store. A private database
 * (`:memory:`) has no other process: messages stay in the process.
 */
export class SqliteChannels extends ListeningChannels {
  /** Marks this instance's rows, which its own subscribers heard already. */
  private readonly origin = randomUUID();
  private timer?: NodeJS.Timeout;
  /** The last row seen; undefined until listening started (then only rows after it are delivered). */
  private lastId?: number;
  private dataVersion?: unknown;
  private down = false;
  private statements?: { version: SqliteStatement; read: SqliteStatement; insert: SqliteStatement; prune: SqliteStatement };

  constructor(
    /** The store's connection (opened on first use; throws typed when it cannot be). */
    private readonly db: () => SqliteConnection,
    /** False for a private database: no other connection can see it. */
    private readonly shared: boolean,
  ) {
    super('sqlite');
  }

  private prepared() {
    const db = this.db();
    return (this.statements ??= {
      version: db.prepare('PRAGMA data_version', 'pluck'),
      read: db.prepare('SELECT id, channel, message, origin FROM channel_messages WHERE id > ? ORDER BY id', 'raw'),
      insert: db.prepare('INSERT INTO channel_messages (channel, message, origin, at) VALUES (?, ?, ?, ?) RETURNING id', 'pluck'),
      prune: db.prepare('DELETE FROM channel_messages WHERE id <= ? OR at < ?'),
    });
  }

  async publish(channel: string, message: string): Promise<void> {
    this.checkChannel(channel);
    this.checkMessage(message);
    if (this.shared) {
      await guard('sqlite', () => {
        const { insert, prune } = this.prepared();
        const now = Date.now();
        this.db().transaction('immediate', () => {
          const id = insert.get(channel, message, this.origin, now) as number;
          prune.run(id - SQLITE_KEPT_MESSAGES, now - SQLITE_KEPT_MS);
        });
      });
    }
    setImmediate(() => this.deliver(channel, message));
  }

  protected async listen(): Promise<void> {
    if (!this.shared || this.timer) return;
    this.lastId = undefined;
    this.poll();
    this.timer = setInterval(() => this.poll(), SQLITE_POLL_MS);
    this.timer.unref();
  }

  private poll(): void {
    try {
      const { version, read } = this.prepared();
      const now = version.get();
      if (this.lastId === undefined) {
        // Only what is published from now on: start after the last row there is (the version read first).
        this.dataVersion = now;
        this.lastId = Number(this.db().prepare('SELECT COALESCE(max(id), 0) FROM channel_messages', 'pluck').get());
      } else if (now === this.dataVersion && !this.down) return;
      this.dataVersion = now;
      const rows = read.all(this.lastId) as Array<[number, string, string, string]>;
      if (this.down) {
        this.down = false;
        this.reportUp();
      }
      for (const [id, channel, message, origin] of rows) {
        this.lastId = id;
        if (origin !== this.origin) this.deliver(channel, message);
      }
    } catch (error) {
      this.down = true;
      this.reportDown(error instanceof ToolwrightError ? error : new StoreUnavailableError('sqlite', error));
    }
  }

  protected async unlisten(): Promise<void> {
    if (this.subscribers.size > 0) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  async close(): Promise<void> {
    this.subscribers.clear();
    clearInterval(this.timer);
    this.timer = undefined;
    this.statements = undefined;
  }
}
