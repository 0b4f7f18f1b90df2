import { ListeningChannels } from './listening-channels';

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
