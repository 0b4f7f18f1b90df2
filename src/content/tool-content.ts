import { ToolwrightConfigError } from '../errors/errors';

/** MCP's content block shapes, as a tool result carries them. Binary data is base64. */
export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: EmbeddedResource }
  | { type: 'resource_link'; uri: string; name: string; description?: string; mimeType?: string };

export type EmbeddedResource = { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string };

/** Bytes as base64, or base64 text as given (checked). */
type Binary = string | Uint8Array;

const MIME = /^[\w.+-]+\/[\w.+-]+$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Parts a factory made, checked and frozen: `of` takes them as they are instead of checking them again. */
const made = new WeakSet<object>();

function mark(part: ContentPart): ContentPart {
  if (part.type === 'resource') Object.freeze(part.resource);
  made.add(Object.freeze(part));
  return part;
}

function fail(detail: string): never {
  throw new ToolwrightConfigError(`ToolContent: ${detail}`);
}

function base64(data: Binary, what: string): string {
  if (data instanceof Uint8Array) return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
  if (typeof data !== 'string' || data.length % 4 !== 0 || !BASE64.test(data)) fail(`${what} data must be bytes or base64 text.`);
  return data;
}

function mime(mimeType: unknown, what: string): string {
  if (typeof mimeType !== 'string' || !MIME.test(mimeType)) fail(`${what} needs a MIME type such as image/png (got ${String(mimeType)}).`);
  return mimeType;
}

function uri(value: unknown, what: string): string {
  if (typeof value !== 'string' || !URL.canParse(value)) fail(`${what} needs an absolute URI (got ${String(value)}).`);
  return value;
}

/**
 * A tool result beyond JSON: text, images, audio, embedded resources and resource links, in order.
 * MCP clients get the parts themselves; a surface that cannot carry a part (a model's tool message,
 * the adapters) gets the result's text form, which describes each part. With `@Tool({ output })`,
 * `structured` is the result the contract checks, and the text the model reads.
 */
export class ToolContent {
  private constructor(
    readonly parts: readonly ContentPart[],
    readonly structured: object | undefined,
  ) {
    Object.freeze(this);
  }

  static of(parts: ContentPart | readonly ContentPart[], options: { structured?: object } = {}): ToolContent {
    const list = Array.isArray(parts) ? [...(parts as readonly ContentPart[])] : [parts as ContentPart];
    if (list.length === 0) fail('a result needs at least one part.');
    const { structured } = options;
    if (structured !== undefined && (typeof structured !== 'object' || structured === null)) fail('structured must be an object.');
    return new ToolContent(Object.freeze(list.map((part) => (made.has(part as object) ? part : checked(part)))), structured);
  }

  static text(text: string): ContentPart {
    return mark(checked({ type: 'text', text }));
  }

  static image(data: Binary, mimeType: string): ContentPart {
    return mark({ type: 'image', data: base64(data, 'an image'), mimeType: mime(mimeType, 'an image') });
  }

  static audio(data: Binary, mimeType: string): ContentPart {
    return mark({ type: 'audio', data: base64(data, 'audio'), mimeType: mime(mimeType, 'audio') });
  }

  /** An embedded resource: its text, or its bytes (`blob`). */
  static resource(resource: { uri: string; mimeType?: string } & ({ text: string } | { blob: Binary })): ContentPart {
    const head = {
      uri: uri(resource.uri, 'a resource'),
      ...(resource.mimeType === undefined ? {} : { mimeType: mime(resource.mimeType, 'a resource') }),
    };
    if ('text' in resource && typeof resource.text === 'string')
      return mark({ type: 'resource', resource: { ...head, text: resource.text } });
    if ('blob' in resource) return mark({ type: 'resource', resource: { ...head, blob: base64(resource.blob, 'a resource blob') } });
    return fail('a resource needs its text or its blob.');
  }

  static resourceLink(link: { uri: string; name: string; description?: string; mimeType?: string }): ContentPart {
    return mark(checked({ type: 'resource_link', ...link }));
  }
}

/** A part as MCP wants it, whether a factory made it or the tool wrote it out. */
function checked(part: ContentPart): ContentPart {
  switch ((part as { type?: unknown } | null)?.type) {
    case 'text':
      if (typeof (part as { text?: unknown }).text !== 'string') fail('a text part needs its text.');
      return { type: 'text', text: (part as { text: string }).text };
    case 'image':
    case 'audio': {
      const { type, data, mimeType } = part as { type: 'image' | 'audio'; data: string; mimeType: string };
      return { type, data: base64(data, type === 'image' ? 'an image' : 'audio'), mimeType: mime(mimeType, type) };
    }
    case 'resource':
      return ToolContent.resource((part as { resource: EmbeddedResource }).resource ?? fail('a resource part needs its resource.'));
    case 'resource_link': {
      const { name, description, mimeType } = part as Extract<ContentPart, { type: 'resource_link' }>;
      if (typeof name !== 'string' || name === '') fail('a resource link needs a name.');
      const link: Extract<ContentPart, { type: 'resource_link' }> = {
        type: 'resource_link',
        uri: uri((part as { uri: unknown }).uri, 'a resource link'),
        name,
      };
      if (typeof description === 'string') link.description = description;
      if (mimeType !== undefined) link.mimeType = mime(mimeType, 'a resource link');
      return link;
    }
    default:
      return fail(`unknown part type ${JSON.stringify((part as { type?: unknown } | null)?.type)}.`);
  }
}

/**
 * The text form of a content result, for whoever cannot carry its parts: text as is, each other
 * part named with its type, MIME type and size (never silently left out).
 */
export function describeContent(content: ToolContent): string {
  return JSON.stringify({ content: content.parts.map(describePart) });
}

function describePart(part: ContentPart): object {
  switch (part.type) {
    case 'text':
      return part;
    case 'image':
    case 'audio':
      return { type: part.type, mimeType: part.mimeType, bytes: Buffer.byteLength(part.data, 'base64') };
    case 'resource': {
      const { uri: at, mimeType } = part.resource;
      if ('text' in part.resource) return { type: 'resource', uri: at, mimeType, text: part.resource.text };
      return { type: 'resource', uri: at, mimeType, bytes: Buffer.byteLength(part.resource.blob, 'base64') };
    }
    case 'resource_link':
      return part;
  }
}
