import { errorText } from '../errors/errors';
import type { Connect, Connection, ConnectionEvents, Endpoint } from './connection';
import { RemoteToolError } from './remote-error';

export interface PoolOptions {
  /** Closes a connection nobody used for this long (the listing connection stays while watched). */
  idleMs: number;
  /** Connection attempts before a call fails as unavailable, and the first backoff delay (doubled each time, at most 5 s). */
  attempts: number;
  backoffMs: number;
}

interface Slot {
  connection?: Promise<Connection>;
  users: number;
  idle?: NodeJS.Timeout;
  /** Kept open while the toolset watches its list. */
  pinned: boolean;
}

/**
 * Connections per identity (one per distinct credential, never shared across them), opened on
 * first use, reopened with backoff after the server died or restarted, closed when idle.
 */
export class ConnectionPool {
  private readonly slots = new Map<string, Slot>();
  private closed = false;

  constructor(
    private readonly server: string,
    private readonly connect: Connect,
    private readonly options: PoolOptions,
    /** The events of the connection of one identity. */
    private readonly events: (key: string) => ConnectionEvents,
  ) {}

  /** Runs `use` on the identity's connection (opened or reopened as needed). */
  async with<T>(key: string, endpoint: () => Promise<Endpoint>, use: (connection: Connection) => Promise<T>, pin = false): Promise<T> {
    if (this.closed) throw new RemoteToolError('unavailable', `MCP server "${this.server}": the toolset is closed.`);
    let slot = this.slots.get(key);
    if (!slot) this.slots.set(key, (slot = { users: 0, pinned: pin }));
    slot.pinned ||= pin;
    clearTimeout(slot.idle);
    slot.users++;
    try {
      let connection = await this.open(key, slot, endpoint);
      if (connection.closed) {
        slot.connection = undefined;
        connection = await this.open(key, slot, endpoint);
      }
      return await use(connection);
    } finally {
      slot.users--;
      this.release(key, slot);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const slots = [...this.slots.values()];
    this.slots.clear();
    await Promise.allSettled(
      slots.map(async (slot) => {
        clearTimeout(slot.idle);
        await (await slot.connection?.catch(() => undefined))?.close();
      }),
    );
  }

  private open(key: string, slot: Slot, endpoint: () => Promise<Endpoint>): Promise<Connection> {
    slot.connection ??= this.dial(key, slot, endpoint);
    return slot.connection;
  }

  /** Connects, retrying with backoff; the last failure is the call's `unavailable` error. */
  private async dial(key: string, slot: Slot, endpoint: () => Promise<Endpoint>): Promise<Connection> {
    const events = this.events(key);
    let last: unknown;
    for (let attempt = 0; attempt < this.options.attempts; attempt++) {
      if (attempt > 0) await delay(Math.min(this.options.backoffMs * 2 ** (attempt - 1), 5000));
      if (this.closed) break;
      try {
        // A connection that closed is seen as `closed` by the next call, which reopens it.
        const connection = await this.connect(await endpoint(), events);
        return connection;
      } catch (error) {
        last = error;
        if (error instanceof RemoteToolError && error.final) {
          slot.connection = undefined;
          throw error;
        }
      }
    }
    slot.connection = undefined;
    throw new RemoteToolError(
      'unavailable',
      `MCP server "${this.server}" is unavailable (${this.options.attempts} attempts): ${errorText(last)}`,
      { cause: last },
    );
  }

  private release(key: string, slot: Slot): void {
    if (slot.users > 0 || slot.pinned || this.closed) return;
    slot.idle = setTimeout(() => {
      if (slot.users > 0 || this.slots.get(key) !== slot) return;
      this.slots.delete(key);
      void slot.connection?.then((c) => c.close()).catch(() => undefined);
    }, this.options.idleMs);
    slot.idle.unref();
  }

  /** How many identities hold a connection now (for tests and metrics). */
  get size(): number {
    return [...this.slots.values()].filter((s) => s.connection !== undefined).length;
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
