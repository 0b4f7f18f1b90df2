import { ToolwrightError } from '../errors/errors';

/**
 * A chat client stopped reading its response for longer than `writeTimeoutMs`: the response is
 * given up and the run it started is cancelled, with this error as the reason (`RunAbortedError`'s
 * `cause`), so one client that never reads holds neither a run nor a socket for good.
 */
export class ClientTooSlowError extends ToolwrightError {
  constructor(readonly timeoutMs: number) {
    super(
      'CLIENT_TOO_SLOW',
      `The client read nothing of its response for ${timeoutMs} ms: the response was ended and its run cancelled. ` +
        'Raise writeTimeoutMs for clients that pause reading longer.',
    );
  }
}
