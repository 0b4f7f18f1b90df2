import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { InputUnavailableError } from '../errors/input-errors';

/** MCP 2026-07-28's MissingRequiredClientCapabilityError: the request needs a capability the client did not declare. */
export const MISSING_CLIENT_CAPABILITY = -32021;

/**
 * A tool that asked for what the client did not declare (sampling, elicitation, roots) and did not
 * recover: on 2026-07-28 the request fails with -32021 naming the capability, as `ClientCapabilities`
 * (`{ sampling: {} }`). Undefined for any other failure (it stays the tool's error result).
 */
export function missingCapabilityError(error: unknown): McpError | undefined {
  if (!(error instanceof InputUnavailableError) || error.missingCapability === undefined) return undefined;
  const capability = error.missingCapability;
  return new McpError(
    MISSING_CLIENT_CAPABILITY,
    `Missing required client capability: ${capability} (declare it in io.modelcontextprotocol/clientCapabilities).`,
    { requiredCapabilities: { [capability]: {} } },
  );
}
