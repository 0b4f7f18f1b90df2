import type { Notification, Pool, PoolClient } from 'pg';
import { ToolwrightConfigError } from '../../errors/errors';
import { guard } from '../snapshot-rows';
import { ListeningChannels } from './listening-channels';

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
