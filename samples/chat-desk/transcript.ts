import type { UIMessage } from 'ai';

/**
 * The assistant's reply as a chat UI would show it, one line a part: text, a tool call with its
 * state (running, waiting for approval, done, denied, failed), the tool's progress.
 */
export function replyLines(message: UIMessage): string[] {
  return message.parts.flatMap((part): string[] => {
    if (part.type === 'text') return [`desk  › ${part.text}`];
    if (part.type.startsWith('tool-')) {
      const tool = part as { type: string; state: string; input?: unknown; output?: unknown; errorText?: string };
      const call = `⚙ ${tool.type.slice(5)}(${JSON.stringify(tool.input)})`;
      switch (tool.state) {
        case 'approval-requested':
          return [`${call}: waiting for your approval`];
        case 'output-available':
          return [`${call} → ${JSON.stringify(tool.output)}`];
        case 'output-denied':
          return [`${call}: denied`];
        case 'output-error':
          return [`${call} ✗ ${tool.errorText}`];
        default:
          return [`${call}: ${tool.state}`];
      }
    }
    return [];
  });
}

/** Prints the lines of the last reply not printed yet: a reply continued after an approval changes in place. */
export function printReply(chat: { reply: UIMessage }, write: (line: string) => void): void {
  const lines = replyLines(chat.reply);
  const seen = printed.get(chat);
  const before = seen?.id === chat.reply.id ? seen.lines : [];
  for (const line of lines) if (!before.includes(line)) write(line);
  printed.set(chat, { id: chat.reply.id, lines });
}

const printed = new WeakMap<object, { id: string; lines: string[] }>();
