import type { ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { describeContent, ToolContent, type ContentPart } from '../../content/tool-content';
import type { Message } from '../../session/message';

/** The image types a tool_result may carry as image blocks. */
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * A tool message as Anthropic's tool_result content: a ToolContent result's text and images as
 * blocks of their own, every other part as the text that describes it (never dropped); a plain
 * result, or parts that no longer check (a stored message edited by hand), as its text.
 */
export function toolResultContent(message: Extract<Message, { role: 'tool' }>): ToolResultBlockParam['content'] {
  if (!message.parts || message.parts.length === 0) return message.content;
  try {
    return message.parts.map(block);
  } catch {
    return message.content;
  }
}

function block(part: ContentPart): Exclude<ToolResultBlockParam['content'], string | undefined>[number] {
  if (part.type === 'text') return { type: 'text', text: part.text };
  const checked = ToolContent.of(part);
  const only = checked.parts[0];
  if (only.type === 'image' && IMAGE_TYPES.has(only.mimeType)) {
    return { type: 'image', source: { type: 'base64', media_type: only.mimeType as 'image/png', data: only.data } };
  }
  return { type: 'text', text: describeContent(checked) };
}
