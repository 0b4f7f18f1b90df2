import { ElicitResultSchema, type CallToolResult, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { encodeToolError } from '../errors/errors';

type Decision = { approve: true; arguments?: string } | { approve: false; reason: string };

/** The approval form: approve or reject, a reason, and optionally edited arguments (validated again before the call runs). */
export async function askApproval(
  name: string,
  input: object,
  sendRequest: (
    request: ElicitRequest,
    schema: typeof ElicitResultSchema,
    options?: { signal?: AbortSignal },
  ) => Promise<{ action: string; content?: Record<string, unknown> }>,
  signal: AbortSignal,
): Promise<Decision> {
  const shown = JSON.stringify(input, null, 2);
  const result = await sendRequest(
    {
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: `Tool "${name}" needs your approval to run with these arguments:\n${shown}`,
        requestedSchema: {
          type: 'object',
          properties: {
            decision: { type: 'string', title: 'Decision', enum: ['approve', 'reject'] },
            reason: { type: 'string', title: 'Reason', description: 'Why the call is rejected (shown to the model).' },
            arguments: {
              type: 'string',
              title: 'Edited arguments',
              description: 'Optional: the arguments to run with instead, as a JSON object.',
            },
          },
          required: ['decision'],
        },
      },
    },
    ElicitResultSchema,
    // A cancelled call stops waiting for the human too.
    { signal },
  );
  const content = result.content ?? {};
  if (result.action !== 'accept' || content.decision !== 'approve') {
    const reason =
      typeof content.reason === 'string' && content.reason
        ? content.reason
        : `the user chose ${result.action === 'accept' ? 'reject' : result.action}`;
    return { approve: false, reason };
  }
  const edited = typeof content.arguments === 'string' && content.arguments.trim() ? content.arguments : undefined;
  return edited === undefined ? { approve: true } : { approve: true, arguments: edited };
}

export function rejected(name: string, reason: string): CallToolResult {
  const text = encodeToolError('REJECTED', `A human rejected this call of "${name}": ${reason}`);
  return { content: [{ type: 'text', text }], isError: true };
}
