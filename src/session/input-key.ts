import { ToolwrightConfigError } from '../errors/errors';

/** A question's name: short, plain, and never one of the numbered names unnamed questions get (`input-<n>`). */
const KEY = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/** The key of `context.elicit` / `elicitUrl` / `sample` / `roots`, checked: a bad one is the tool's bug and throws. */
export function checkInputKey(key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !KEY.test(key) || /^input-\d+$/.test(key))
    throw new ToolwrightConfigError(
      `An input key must be a letter or _ followed by up to 63 letters, digits, _ . or -, and not input-<n> (got ${JSON.stringify(key)}).`,
    );
  return key;
}
