import { ToolDefinitionError } from '../errors/errors';

/** A URI template compiled for matching: its variables, in order, and the URIs it names. */
export interface UriMatcher {
  readonly variables: readonly string[];
  readonly match: (uri: string) => Record<string, string> | undefined;
}

const EXPRESSION = /\{([^{}]*)\}/g;
const VARIABLE = /^[A-Za-z0-9_]+$/;

/**
 * RFC 6570's simple expansion (`{id}`) only: a value is percent-encoded, so it never spans a `/`,
 * `?` or `#`, and a URI names at most one set of values. Other operators are refused at build.
 */
export function compileUriTemplate(template: string, cls: string): UriMatcher {
  const variables: string[] = [];
  let pattern = '^';
  let last = 0;
  for (const found of template.matchAll(EXPRESSION)) {
    const name = found[1];
    if (!VARIABLE.test(name)) {
      throw new ToolDefinitionError(
        `${cls}: uriTemplate "${template}" uses {${name}}; only simple variables such as {id} are supported (no operators, lists or modifiers).`,
      );
    }
    if (variables.includes(name)) throw new ToolDefinitionError(`${cls}: uriTemplate "${template}" names {${name}} twice.`);
    variables.push(name);
    pattern += escape(template.slice(last, found.index)) + '([^/?#]+)';
    last = found.index + found[0].length;
  }
  const rest = template.slice(last);
  if (/[{}]/.test(rest) || variables.length === 0) {
    throw new ToolDefinitionError(`${cls}: uriTemplate "${template}" needs at least one {variable} and balanced braces.`);
  }
  const regex = new RegExp(pattern + escape(rest) + '$');
  return {
    variables,
    match: (uri) => {
      const found = regex.exec(uri);
      if (!found) return undefined;
      const values: Record<string, string> = {};
      try {
        variables.forEach((name, i) => (values[name] = decodeURIComponent(found[i + 1])));
      } catch {
        return undefined; // malformed percent-encoding names no resource
      }
      return values;
    },
  };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
