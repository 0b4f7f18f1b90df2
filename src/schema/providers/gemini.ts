import { ToolDefinitionError } from '../../errors/errors';
import type { ToolDefinition } from '../../metadata/json-schema';
import { NotGeminiRepresentable, toGeminiSchema, type GeminiSchema } from './gemini-schema';
import { clone } from './schema-helpers';

/** One `ToolDefinition` as a Gemini function declaration. */

export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  /** Absent for a tool without arguments: Gemini rejects an object schema with no properties. */
  parameters?: GeminiSchema;
}

/** Gemini's function names: a letter or `_` first, then letters, digits, `_`, `.`, `:` or `-`; at most 64. */
const GEMINI_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;

/**
 * `{ name, description, parameters }` in Gemini's OpenAPI-3 subset: type arrays with `null` become
 * `nullable: true`, `const` an enum of one, `oneOf` `anyOf`, `allOf` is merged, local `$ref`s are
 * inlined, `exclusiveMinimum`/`exclusiveMaximum` become bounds, `examples` the single `example`;
 * `additionalProperties`, `$schema` and unsupported formats are dropped (constraints the model
 * should still know about are kept as a note in the description).
 *
 * Gemini refuses an OBJECT without properties (a free-form object, an empty nested class, a
 * recursive `$ref`): an OPTIONAL property of that kind is left out (the model cannot send it; the
 * tool runs without it), a union branch of that kind is dropped, and a REQUIRED one cannot be
 * declared, so this throws a ToolDefinitionError naming the tool, the property and the fix. So does
 * a tool name Gemini refuses (it must start with a letter or an underscore).
 */
export function toGeminiFunctionDeclaration(def: ToolDefinition): GeminiFunctionDeclaration {
  if (!GEMINI_NAME.test(def.name)) {
    throw new ToolDefinitionError(
      `Tool "${def.name}" cannot be declared to Gemini: a function name must start with a letter or an underscore and ` +
        'use only letters, digits, "_", ".", ":" or "-" (at most 64). Rename the tool, e.g. with @Tool({ name }).',
    );
  }
  const declaration: GeminiFunctionDeclaration = { name: def.name, description: def.description };
  // A root without properties is a tool without arguments: Gemini takes no `parameters` at all.
  if (!def.parameters.properties && !def.parameters.$ref && !def.parameters.allOf) return declaration;
  let parameters: GeminiSchema;
  try {
    parameters = clone(toGeminiSchema(def.parameters, def.parameters));
  } catch (error) {
    if (!(error instanceof NotGeminiRepresentable)) throw error;
    if (error.path === '') return declaration; // every property was optional and left out
    throw new ToolDefinitionError(
      `Tool "${def.name}" cannot be declared to Gemini: its required parameter "${error.path}" is ${error.reason}, and Gemini ` +
        'refuses an OBJECT without properties. List its properties (a nested class with @Param properties), make it optional ' +
        '(Gemini then leaves it out), or send this tool to another provider.',
    );
  }
  if (parameters.properties && Object.keys(parameters.properties).length > 0) declaration.parameters = parameters;
  return declaration;
}
