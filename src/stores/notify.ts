/**
 * Messages between the processes that share a store (`SessionStore.channels`): Redis
 * PUBLISH/SUBSCRIBE, PostgreSQL NOTIFY/LISTEN, a table of recent messages for SQLite processes
 * sharing one file, and in-process delivery for the in-memory store. Used by the stateless MCP server so that a `notifications/cancelled` landing on one
 * process aborts the call running on another.
 */
import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import type { Notification, Pool, PoolClient } from 'pg';
import { StoreLimitError, StoreUnavailableError, ToolwrightConfigError, ToolwrightError } from '../errors/errors';
import { guard } from './snapshot-rows';
import type { SqliteConnection, SqliteStatement } from './sqlite/driver';
import type { StoreChannels } from './store';

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more; every store keeps the same bound. */
export const MAX_MESSAGE_BYTES = 7999;

type Listener = (message: string) => void;
type ErrorListener = (error: unknown) => void;

interface Subscriber {
  listener: Listener;
  onError?: ErrorListener;
  /** Told of the current outage already. */
  told?: boolean;
}

/** A backend that keeps a connection listening to the channels that have subscribers, and says when it cannot. */
abstract class ListeningChannels implements StoreChannels {
  protected readonly subscribers = new Map<string, Set<Subscriber>>();
  /** The current outage (from its first report until listening works again), reported once to each subscriber. */
  private outage?: unknown;

  constructor(protected readonly storeName: string) {}

  abstract publish(channel: string, message: string): Promise<void>;

  async subscribe(channel: string, listener: Listener, onError?: ErrorListener): Promise<() => Promise<void>> {
    this.checkChannel(channel);
    const subscriber: Subscriber = { listener, onError };
    let set = this.subscribers.get(channel);
    const first = !set;
    if (!set) this.subscribers.set(channel, (set = new Set()));
    set.add(subscriber);
    // Resolves once listening works or its failure was reported; never rejects (delivery is best effort).
    if (first) await this.listen(channel);
    // A subscriber joining during an outage hears of it too.
    if (this.outage !== undefined) this.tell(subscriber);
    return async () => {
      if (!set.delete(subscriber) || set.size > 0 || this.subscribers.get(channel) !== set) return;
      this.subscribers.delete(channel);
      await this.unlisten(channel);
    };
  }

  /** Validates a channel name (letters, digits, `-`, `_`, `.`, `:`; at most 40 characters). */
  protected checkChannel(channel: string): void {
    if (!/^[A-Za-z0-9_.:-]{1,40}$/.test(channel))
      throw new ToolwrightConfigError(`invalid channel name ${JSON.stringify(channel)}: use 1–40 letters, digits, "-", "_", "." or ":"`);
  }

  protected checkMessage(message: string): void {
    // PostgreSQL text holds neither; Redis would turn a lone surrogate into U+FFFD.
    if (message.includes('\u0000') || /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(message))
      throw new StoreLimitError(this.storeName, 'a message with NUL or an unpaired surrogate (use JSON, which escapes them)');
    const bytes = Buffer.byteLength(message, 'utf8');
    if (bytes > MAX_MESSAGE_BYTES) throw new StoreLimitError(this.storeName, `a message of ${bytes} bytes (at most ${MAX_MESSAGE_BYTES})`);
  }

  protected deliver(channel: string, message: string): void {
    for (const { listener } of this.subscribers.get(channel) ?? []) {
      try {
        listener(message);
      } catch {
        // One listener's failure is not the others' (nor the connection's).
      }
    }
  }

  /** Tells every subscriber, once per outage, that messages are not received until the backend is back. */
  protected reportDown(cause: unknown): void {
    this.outage ??= cause instanceof ToolwrightError ? cause : new StoreUnavailableError(this.storeName, cause);
    for (const set of this.subscribers.values()) for (const subscriber of set) this.tell(subscriber);
  }

  private tell(subscriber: Subscriber): void {
    if (subscriber.told) return;
    subscriber.told = true;
    try {
      subscriber.onError?.(this.outage);
    } catch {
      // A failing error listener must not stop the others.
    }
  }

  protected reportUp(): void {
    this.outage = undefined;
    for (const set of this.subscribers.values()) for (const subscriber of set) subscriber.told = false;
  }

  protected abstract listen(channel: string): Promise<void>;
  protected abstract unlisten(channel: string): Promise<void>;
  abstract close(): Promise<void>;
}

/**
 * Redis: PUBLISH on the store's own connection; SUBSCRIBE on one more connection (a subscribed
 * connection can run nothing else), made on the first subscription and closed with the last.
 * The subscriber reconnects like the store's client and subscribes again once it is back.
 */
export class RedisChannels extends ListeningChannels {
  private subscriber?: Redis;

  constructor(
    private readonly client: Redis,
    private readonly prefix: string,
  ) {
    super('redis');
  }

  private name(channel: string): string {
    return `${this.prefix}channel:${channel}`;
  }

  async publish(channel: string, message: string): Promise<void> {
    this.checkChannel(channel);
    this.checkMessage(message);
    await guard('redis', () => this.client.publish(this.name(channel), message));
  }

  protected async listen(channel: string): Promise<void> {
    if (this.subscriber) {
      if (this.subscriber.status === 'ready') await this.renew(this.subscriber, [channel]);
      return;
    }
    let subscriber: Redis;
    try {
      // Subscriptions are renewed on every 'ready' below, so ioredis's own resubscribing is off.
      subscriber = this.client.duplicate({ autoResubscribe: false, lazyConnect: true });
    } catch (error) {
      return this.reportDown(error);
    }
    this.subscriber = subscriber;
    let renewing: Promise<void> | undefined;
    subscriber.on('error', (error: unknown) => this.reportDown(error));
    subscriber.on('message', (name: string, message: string) => {
      const prefix = this.name('');
      if (name.startsWith(prefix)) this.deliver(name.slice(prefix.length), message);
    });
    subscriber.on('ready', () => void (renewing = this.renew(subscriber)));
    // A refused first connection is retried by ioredis (its retryStrategy); the outage is reported through 'error'.
    await new Promise<void>((resolve) => {
      subscriber.once('ready', resolve);
      subscriber.once('error', () => resolve());
      subscriber.connect().catch(() => resolve());
    });
    await renewing;
  }

  /** (Re)subscribes to `channels` (default: every channel that has subscribers). */
  private async renew(subscriber: Redis, channels = [...this.subscribers.keys()]): Promise<void> {
    if (channels.length === 0 || subscriber !== this.subscriber) return;
    try {
      await subscriber.subscribe(...channels.map((c) => this.name(c)));
      this.reportUp();
    } catch (error) {
      this.reportDown(error);
    }
  }

  protected async unlisten(channel: string): Promise<void> {
    const subscriber = this.subscriber;
    if (!subscriber) return;
    if (this.subscribers.size === 0) return this.close();
    if (subscriber.status === 'ready') await subscriber.unsubscribe(this.name(channel)).catch(() => undefined);
  }

  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    this.subscribers.clear();
    if (!subscriber) return;
    subscriber.removeAllListeners('ready');
    if (subscriber.status === 'ready') await subscriber.quit().catch(() => subscriber.disconnect());
    else subscriber.disconnect();
  }
}

/**
 * PostgreSQL: `pg_notify(channel, payload)` through the pool (parameters, so no quoting); LISTEN
 * on one client taken from the pool for as long as there are subscribers. A lost listening
 * connection is replaced, with a growing pause (up to 5 s), and listens again. Channel names are
 * `<schema>.<channel>`, so stores on different schemas of one database do not hear each other.
 */
export class PgChannels extends ListeningChannels {
  private listener?: PoolClient;
  private connecting?: Promise<void>;
  private retry?: NodeJS.Timeout;
  private attempts = 0;
  private closed = false;
  /** The channels the current listening connection has run LISTEN for. */
  private listened = new Set<string>();

  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
  ) {
    super('postgres');
  }

  private name(channel: string): string {
    return `${this.schema}.${channel}`;
  }

  protected override checkChannel(channel: string): void {
    super.checkChannel(channel);
    // An identifier (what LISTEN takes) is at most 63 bytes.
    if (Buffer.byteLength(this.name(channel)) > 63)
      throw new ToolwrightConfigError(`channel ${JSON.stringify(this.name(channel))} is longer than PostgreSQL's 63-byte identifiers`);
  }

  async publish(channel: string, message: string): Promise<void> {
    this.checkChannel(channel);
    this.checkMessage(message);
    await guard('postgres', () => this.pool.query('SELECT pg_notify($1, $2)', [this.name(channel), message]));
  }

  protected async listen(channel: string): Promise<void> {
    this.closed = false;
    if (!this.listener) await (this.connecting ??= this.connect());
    const client = this.listener;
    if (!client || this.listened.has(channel)) return;
    this.listened.add(channel);
    await client.query(`LISTEN ${quote(this.name(channel))}`).catch((error: unknown) => this.lost(error));
  }

  private async connect(): Promise<void> {
    let client: PoolClient | undefined;
    try {
      client = await this.pool.connect();
      client.on('notification', this.onNotification);
      client.on('error', this.lost);
      client.on('end', this.lost);
      this.listened = new Set(this.subscribers.keys());
      for (const channel of this.listened) await client.query(`LISTEN ${quote(this.name(channel))}`);
      if (this.closed || this.subscribers.size === 0) return await this.release(client);
      this.listener = client;
      this.attempts = 0;
      this.reportUp();
    } catch (error) {
      if (client) this.drop(client, true);
      this.reportDown(error);
      this.scheduleRetry();
    } finally {
      this.connecting = undefined;
    }
  }

  private readonly onNotification = (notification: Notification): void => {
    const prefix = `${this.schema}.`;
    if (notification.channel.startsWith(prefix) && notification.payload !== undefined)
      this.deliver(notification.channel.slice(prefix.length), notification.payload);
  };

  private readonly lost = (error?: unknown): void => {
    const client = this.listener;
    if (!client) return;
    this.listener = undefined;
    this.drop(client, true);
    this.reportDown(error ?? new Error('the listening connection ended'));
    this.scheduleRetry();
  };

  private scheduleRetry(): void {
    if (this.closed || this.retry || this.subscribers.size === 0) return;
    const delay = Math.min(250 * 2 ** this.attempts++, 5000);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.closed && !this.listener && this.subscribers.size > 0) void (this.connecting ??= this.connect());
    }, delay);
    this.retry.unref();
  }

  /** UNLISTEN so the pooled connection comes back clean; a connection that cannot is dropped. */
  private async release(client: PoolClient): Promise<void> {
    const clean = await client.query('UNLISTEN *').then(
      () => true,
      () => false,
    );
    this.drop(client, !clean);
  }

  private drop(client: PoolClient, broken: boolean): void {
    client.off('notification', this.onNotification);
    client.off('error', this.lost);
    client.off('end', this.lost);
    // A client that failed is not returned to the pool for reuse.
    client.on('error', () => undefined);
    try {
      client.release(broken);
    } catch {
      // Released already.
    }
  }

  protected async unlisten(channel: string): Promise<void> {
    if (this.subscribers.size === 0) return this.close();
    this.listened.delete(channel);
    await this.listener?.query(`UNLISTEN ${quote(this.name(channel))}`).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.subscribers.clear();
    clearTimeout(this.retry);
    this.retry = undefined;
    await this.connecting;
    const client = this.listener;
    this.listener = undefined;
    if (client) await this.release(client);
  }
}

/** A PostgreSQL identifier in double quotes (channel names are validated; quotes doubled regardless). */
function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}

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

/** The in-memory store: one process, so messages go to this store's own subscribers, asynchronously as elsewhere. */
export class LocalChannels extends ListeningChannels {
  async publish(channel: string, message: string): Promise<void> {
    this.checkChannel(channel);
    this.checkMessage(message);
    setImmediate(() => this.deliver(channel, message));
  }

  protected async listen(): Promise<void> {}
  protected async unlisten(): Promise<void> {}
  async close(): Promise<void> {
    this.subscribers.clear();
  }
}
