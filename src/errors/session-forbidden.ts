import { ToolwrightError } from './errors';

/** The session belongs to another user; a run never reads or writes it. */
export class SessionForbiddenError extends ToolwrightError {
  constructor(readonly sessionId: string) {
    super('SESSION_FORBIDDEN', `Session "${sessionId}" belongs to another user.`);
  }
}
