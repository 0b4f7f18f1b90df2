/**
 * A run's cancellation without an AbortSignal until someone reads one. Creating an AbortSignal
 * (`new AbortController().signal`, `AbortSignal.any`) is costly on Node 20, more than the rest of
 * a streamed run's overhead; a streamed run needs a way to cancel its tools, but most
 * tools and fake models never look at a signal. Internal: not exported from the package.
 */
export class Cancellation {
  aborted = false;
  reason: unknown = undefined;
  private controller?: AbortController;
  /** Internal listeners (the registry's per-call race, a streamed model turn): a plain list, no EventTarget. */
  private listeners?: (() => void)[];
  /** The caller's signal this one follows (linked by `link`, unlinked by `dispose`). */
  protected outer?: AbortSignal;
  private onOuterAbort?: () => void;

  /** Linked to `outer` (a caller's signal) by one listener on it, removed by `dispose`. */
  constructor(outer?: AbortSignal) {
    this.outer = outer;
    if (outer) this.link();
  }

  /** Follows `outer`: aborted now if it already is, else when it fires. */
  protected link(): void {
    const outer = this.outer!;
    if (outer.aborted) {
      this.abort(outer.reason);
      return;
    }
    this.onOuterAbort = () => this.abort(outer.reason);
    outer.addEventListener('abort', this.onOuterAbort, { once: true });
  }

  /** The AbortSignal, created on first read (already aborted, with the reason, when the run was cancelled before). */
  get signal(): AbortSignal {
    let controller = this.controller;
    if (!controller) {
      controller = this.controller = new AbortController();
      if (this.aborted) controller.abort(this.reason);
    }
    return controller.signal;
  }

  /** Aborts once: the signal (if anyone read it) fires first, so a tool hears it before its call is failed. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.dispose();
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }

  onAbort(listener: () => void): void {
    (this.listeners ??= []).push(listener);
  }

  offAbort(listener: () => void): void {
    const i = this.listeners?.indexOf(listener) ?? -1;
    if (i >= 0) this.listeners!.splice(i, 1);
  }

  /** Unlinks the caller's signal (the run is over: a long-lived outer signal must not keep it). */
  dispose(): void {
    if (this.onOuterAbort) this.outer!.removeEventListener('abort', this.onOuterAbort);
  }
}

/** An AbortSignal or a Cancellation: what a run and a call read to know they were cancelled. */
export type CancelSource = AbortSignal | Cancellation;

/** Listens for the abort of either kind; returns the remover. */
export function onAbort(source: CancelSource, listener: () => void): () => void {
  if (source instanceof Cancellation) {
    source.onAbort(listener);
    return () => source.offAbort(listener);
  }
  source.addEventListener('abort', listener, { once: true });
  return () => source.removeEventListener('abort', listener);
}

/** The agent's run cancellation on `CallOptions` (internal: the public field stays `signal`). */
export const RUN_CANCELLATION: unique symbol = Symbol('toolwright.runCancellation');
