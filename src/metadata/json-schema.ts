/** The JSON Schema subset toolwright generates and accepts in hand-written definitions. */
export interface JsonSchema {
  type?: JsonSchemaType | JsonSchemaType[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: readonly unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  default?: unknown;
  examples?: unknown[];
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  discriminator?: { propertyName: string };
  $schema?: string;
  [keyword: string]: unknown;
}

export type JsonSchemaType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/** What the model is told about a tool: the PHP kit's `{ name, description, parameters }`. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchema;
  /** The declared output contract (`@Tool({ output })`), when there is one. */
  outputSchema?: JsonSchema;
}
