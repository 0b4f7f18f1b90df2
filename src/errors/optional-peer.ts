import { ToolwrightConfigError } from './errors';

/**
 * Loads an optional peer dependency on first use. When it is not installed, fails with a
 * PEER_MISSING error naming the install command and what to use instead; any other load failure
 * (a native module built for another Node, say) keeps its own message as the cause.
 */
export function requirePeer<T>(name: string, install: string, usedBy: string, alternatives?: string): T {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(name) as T;
  } catch (error) {
    const missing = (error as { code?: string }).code === 'MODULE_NOT_FOUND' && String((error as Error).message).includes(`'${name}'`);
    const reason = missing ? 'is not installed' : `failed to load (${(error as Error).message})`;
    throw new ToolwrightConfigError(
      `${usedBy} needs the optional dependency ${name}, which ${reason}. Install it: ${install}.` +
        (alternatives ? ` ${alternatives}` : ''),
      'PEER_MISSING',
      { cause: error },
    );
  }
}
