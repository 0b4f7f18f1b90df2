import type Redis from 'ioredis';
import { guard } from '../snapshot-rows';
import { ListeningChannels } from './listening-channels';

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
