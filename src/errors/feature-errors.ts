import { ToolwrightError } from './errors';

/** No resource this caller may read has this URI (one hidden by the gate reads as one that does not exist). */
export class ResourceNotFoundError extends ToolwrightError {
  constructor(readonly uri: string) {
    super('RESOURCE_NOT_FOUND', `Resource "${uri.slice(0, 200)}" does not exist.`, { captureStack: false });
  }
}

/** No prompt this caller may use has this name. */
export class PromptNotFoundError extends ToolwrightError {
  constructor(
    readonly promptName: string,
    readonly available: readonly string[] = [],
  ) {
    super(
      'PROMPT_NOT_FOUND',
      `Prompt "${promptName.slice(0, 200)}" does not exist.` +
        (available.length ? ` Available prompts: ${available.slice(0, 20).join(', ')}.` : ''),
      { captureStack: false },
    );
  }
}
