import type { AgentEvent } from './events';
import type { RunEvents } from './event-stream';
import type { StoredConversation } from './run-state';
import type { RunResult } from './types';

/**
 * The events of one streamed turn across handoffs, as one run's: each agent's run reports here and
 * its events go on to the stream, but for the later runs' run-start and every run's run-end, held
 * back so that the turn ends once, with the joined result (`endWith`). A run's failure ends the stream.
 */
export class HandoffEvents implements RunEvents {
  private started = false;
  /** A run's failure reached the stream: no more runs, no run-end. */
  failed = false;
  private runId = '';

  constructor(private readonly stream: RunEvents) {}

  emit(event: AgentEvent<unknown>): void {
    if (event.type === 'run-start') {
      if (this.started) return;
      this.started = true;
    } else if (event.type === 'run-end') {
      this.runId = event.runId;
      return;
    }
    this.stream.emit(event);
  }

  end(failed: boolean, error: unknown): void {
    if (failed) this.failed = true;
    this.stream.end(failed, error);
  }

  room(): Promise<void> | undefined {
    return this.stream.room();
  }

  /** The turn's one run-end, with the joined result of its runs (the last run's id, as its result's). */
  endWith(result: RunResult<unknown>): void {
    if (!this.failed) this.stream.emit({ type: 'run-end', runId: this.runId, result });
  }
}

/** The turn's user message (a resumed run that hands off: the receiving agent answers it). */
export const lastUserText = (stored: StoredConversation): string => {
  const user = [...stored.history].reverse().find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : '';
};
