import type { JsonSchema } from '../../metadata/json-schema';

/** Local `$ref`s (`#/$defs/…`, `#/definitions/…`): resolving them and finding recursive ones. */

export function resolveLocalRef(root: JsonSchema, ref: string): JsonSchema | undefined {
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (!match) return undefined;
  const defs = root[match[1]] as Record<string, JsonSchema> | undefined;
  return defs && Object.prototype.hasOwnProperty.call(defs, match[2]) ? defs[match[2]] : undefined;
}

/** Every `$ref` value under `schema`, outside its own `$defs`/`definitions`. */
function refsIn(schema: unknown, found: string[] = []): string[] {
  if (Array.isArray(schema)) for (const item of schema) refsIn(item, found);
  else if (schema && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === '$ref' && typeof value === 'string') found.push(value);
      else if (key !== '$defs' && key !== 'definitions') refsIn(value, found);
    }
  }
  return found;
}

/** The first local `$ref` that leads back to itself (directly or through other definitions), if any. */
export function recursiveRef(root: JsonSchema): string | undefined {
  const done = new Set<string>();
  const visit = (ref: string, path: readonly string[]): string | undefined => {
    if (path.includes(ref)) return ref;
    if (done.has(ref)) return undefined;
    const target = resolveLocalRef(root, ref);
    for (const next of target ? refsIn(target) : []) {
      const cycle = visit(next, [...path, ref]);
      if (cycle) return cycle;
    }
    done.add(ref);
    return undefined;
  };
  for (const ref of refsIn(root)) {
    const cycle = visit(ref, []);
    if (cycle) return cycle;
  }
  for (const key of ['$defs', 'definitions'] as const) {
    for (const name of Object.keys((root[key] as Record<string, JsonSchema> | undefined) ?? {})) {
      const cycle = visit(`#/${key}/${name}`, []);
      if (cycle) return cycle;
    }
  }
  return undefined;
}
