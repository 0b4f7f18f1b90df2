import { describeContent, ToolContent, type ContentPart } from '../content/tool-content';

/** The parts of an AI SDK tool output that carries a ToolContent result (`{ content: parts }`, MCP's shape). */
export interface ContentOutput {
  content: readonly ContentPart[];
  structuredContent?: object;
}

/** The output the model gets for a tool result, in the AI SDK's `ToolResultOutput` shape (ai 6 and 7). */
export type ModelOutput =
  | { type: 'json'; value: unknown }
  | {
      type: 'content';
      value: Array<
        | { type: 'text'; text: string }
        | { type: 'image-data'; data: string; mediaType: string }
        | { type: 'file-data'; data: string; mediaType: string }
      >;
    };

/**
 * `toModelOutput`: a ToolContent result's text, images and audio as the model's own content parts
 * (each provider takes what it can), resources as the text that describes them; any other result
 * as the JSON value it is. Read from the output itself, so it also holds for messages replayed
 * from a UI (`convertToModelMessages`).
 */
export function toModelOutput({ output }: { output: unknown }): ModelOutput {
  const parts = contentParts(output);
  if (parts === undefined) return { type: 'json', value: output as never };
  return {
    type: 'content',
    value: parts.map((part) => {
      if (part.type === 'text') return { type: 'text', text: part.text };
      if (part.type === 'image') return { type: 'image-data', data: part.data, mediaType: part.mimeType };
      if (part.type === 'audio') return { type: 'file-data', data: part.data, mediaType: part.mimeType };
      return { type: 'text', text: describeContent(ToolContent.of(part)) };
    }),
  };
}

/** The parts, when the output is `{ content: [...] }` of parts that check; otherwise undefined. */
function contentParts(output: unknown): readonly ContentPart[] | undefined {
  const content = (output as { content?: unknown } | null)?.content;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  try {
    return ToolContent.of(content as ContentPart[]).parts;
  } catch {
    return undefined;
  }
}
