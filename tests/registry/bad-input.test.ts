import 'reflect-metadata';
import { Equals, IsNumber, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import {
  Param,
  Tool,
  ToolExecutionError,
  ToolInputError,
  ToolNotFoundError,
  ToolOutputError,
  ToolRegistry,
  ToolTimeoutError,
  ToolwrightError,
  type ToolDefinition,
  type ToolInterface,
} from 'toolwright';

/*
 * Everything a model (or a caller) can get wrong, in one table: each row gets its typed error and
 * code, nothing is polluted, and the same registry keeps serving valid calls afterwards.
 */

class Meta {
  @Param() @IsOptional() @IsString() source?: string;
}

class TransferInput {
  @Param() @IsString() @MaxLength(100) account!: string;
  @Param() @IsNumber() amount!: number;
  @Param() @IsOptional() @IsString() @MaxLength(1000) memo?: string;
  @Param() @IsOptional() @ValidateNested() @Type(() => Meta) meta?: object;
}

@Tool({ name: 'transfer', description: 'Transfer money', input: TransferInput })
class TransferTool {
  execute(args: TransferInput): object {
    return { status: 'ok', account: args.account, amount: args.amount };
  }
}

/** A hand-written tool whose schema does not bound the depth of its arguments. */
class EchoTool implements ToolInterface {
  definition(): ToolDefinition {
    return { name: 'echo', description: 'Echo anything', parameters: { type: 'object' } };
  }
  execute(args: Record<string, unknown>): object {
    return args;
  }
}

class NoInput {}

@Tool({ name: 'throws', description: 'Always fails', input: NoInput })
class ThrowingTool {
  execute(): string {
    throw new Error('disk full');
  }
}

@Tool({ name: 'bad_json', description: 'Returns broken JSON', input: NoInput })
class BadJsonTool {
  execute(): string {
    return '{"status": "ok",';
  }
}

class Ok {
  @Param() @Equals('ok') status!: 'ok';
}

@Tool({ name: 'bad_output', description: 'Breaks its contract', input: NoInput, output: Ok })
class BadOutputTool {
  execute(): object {
    return { status: 'maybe' };
  }
}

@Tool({ name: 'hangs', description: 'Never returns', input: NoInput, timeoutMs: 25 })
class HangingTool {
  execute(): Promise<string> {
    return new Promise(() => undefined);
  }
}

const registry = ToolRegistry.build({ tools: [TransferTool, EchoTool, ThrowingTool, BadJsonTool, BadOutputTool, HangingTool] });

const TEN_MB = 10 * 1024 * 1024;
const DEPTH = 10_000;
const deepArrayText = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
const deepMetaText = '{"account":"a","amount":1,"meta":' + '{"parent":'.repeat(DEPTH) + '{}' + '}'.repeat(DEPTH + 1);
function deepObject(depth: number): Record<string, unknown> {
  let node: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++) node = { parent: node };
  return node;
}

type ErrorClass = abstract new (...args: never[]) => ToolwrightError;
interface Row {
  label: string;
  tool?: string;
  args: () => string | object;
  error: ErrorClass;
  code: string;
  /** For ToolInputError: the constraint (and path) of the first field error. */
  constraint?: string;
  path?: string;
}

const rows: Row[] = [
  { label: 'malformed JSON', args: () => '{"account": "a",', error: ToolInputError, code: 'INVALID_JSON', constraint: 'isJson' },
  { label: 'a JSON array', args: () => '[1, 2]', error: ToolInputError, code: 'INVALID_ARGUMENTS', constraint: 'isObject' },
  { label: 'a JSON string', args: () => '"transfer 5"', error: ToolInputError, code: 'INVALID_ARGUMENTS', constraint: 'isObject' },
  { label: 'a JSON number', args: () => '42', error: ToolInputError, code: 'INVALID_ARGUMENTS', constraint: 'isObject' },
  { label: 'JSON null', args: () => 'null', error: ToolInputError, code: 'INVALID_ARGUMENTS', constraint: 'isObject' },
  {
    label: 'an array passed directly',
    args: () => [{ account: 'a', amount: 1 }],
    error: ToolInputError,
    code: 'INVALID_ARGUMENTS',
    constraint: 'isObject',
  },
  {
    label: 'wrong types',
    args: () => '{"account": 5, "amount": "five"}',
    error: ToolInputError,
    code: 'INVALID_ARGUMENTS',
    constraint: 'isString',
  },
  {
    label: 'a missing required field',
    args: () => '{"account": "a"}',
    error: ToolInputError,
    code: 'INVALID_ARGUMENTS',
    constraint: 'isDefined',
  },
  {
    label: 'an extra property',
    args: () => '{"account": "a", "amount": 1, "admin": true}',
    error: ToolInputError,
    code: 'INVALID_ARGUMENTS',
    constraint: 'whitelistValidation',
  },
  {
    label: 'a "__proto__" key in JSON',
    args: () => '{"__proto__": {"polluted": 1}}',
    error: ToolInputError,
    code: 'INVALID_ARGUMENTS',
    constraint: 'forbiddenKey',
  },
  {
    label: 'a "constructor.prototype" key in JSON',
    args: () => '{"constructor": {"prototype": {"polluted": 1}}}',
    error: ToolInputError,
    code: 'INVALID_ARGUMENTS',
    constraint: 'forbiddenKey',
  },
  {
    label: 'a unicode-escaped "\\u005f_proto__" key',
    args: () => '{"\\u005f_proto__": {"polluted": 1}}',
    error: ToolInputError,
    code: 'INVALID_ARGUMENTS',
    constraint: 'forbiddenKey',
  },
  {
    label: 'a nested "__proto__" key in JSON',
    args: () => '{"account": "a", "amount": 1, "meta": {"__proto__": {"polluted": 1}}}',
    error: ToolInputError,
    code: 'INVALID_ARGUMENTS',
    constraint: 'forbiddenKey',
  },
  {
    label: 'an object with an own "__proto__" key',
    args: () => JSON.parse('{"account": "a", "amount": 1, "__proto__": {"polluted": 1}}'),
    error: ToolInputError,
    code: 'INVALID_ARGUMENTS',
    constraint: 'forbiddenKey',
  },
  {
    label: 'an object with a "constructor.prototype" key',
    args: () => ({ constructor: { prototype: { polluted: 1 } } }),
    error: ToolInputError,
    code: 'INVALID_ARGUMENTS',
    constraint: 'forbiddenKey',
  },
  {
    label: 'an object with a nested own "__proto__" key',
    args: () => JSON.parse('{"account": "a", "amount": 1, "meta": {"__proto__": {"polluted": 1}}}'),
    error: ToolInputError,
    code: 'INVALID_ARGUMENTS',
    constraint: 'forbiddenKey',
  },
  {
    label: 'a 10 MB argument string',
    args: () => JSON.stringify({ account: 'a', amount: 1, memo: 'x'.repeat(TEN_MB) }),
    error: ToolInputError,
    code: 'INVALID_ARGUMENTS',
    constraint: 'maxLength',
    path: '',
  },
  {
    label: 'a 10 MB field passed as an object',
    args: () => ({ account: 'a', amount: 1, memo: 'x'.repeat(TEN_MB) }),
    error: ToolInputError,
    code: 'INVALID_ARGUMENTS',
    constraint: 'maxLength',
    path: 'memo',
  },
  { label: 'arrays nested 10,000 deep', args: () => deepArrayText, error: ToolInputError, code: 'INVALID_ARGUMENTS' },
  { label: 'objects nested 10,000 deep (JSON)', args: () => deepMetaText, error: ToolInputError, code: 'INVALID_ARGUMENTS' },
  {
    label: 'objects nested 10,000 deep (object)',
    args: () => ({ account: 'a', amount: 1, meta: deepObject(DEPTH) }),
    error: ToolInputError,
    code: 'INVALID_ARGUMENTS',
    constraint: 'maxDepth',
  },
  {
    label: 'arrays nested 10,000 deep for a free-form schema',
    tool: 'echo',
    args: () => `{"a":${deepArrayText}}`,
    error: ToolInputError,
    code: 'INVALID_ARGUMENTS',
    constraint: 'maxDepth',
  },
  {
    label: 'objects nested 10,000 deep for a free-form schema',
    tool: 'echo',
    args: () => ({ a: deepObject(DEPTH) }),
    error: ToolInputError,
    code: 'INVALID_ARGUMENTS',
    constraint: 'maxDepth',
  },
  {
    label: 'NaN as a string',
    args: () => '{"account": "a", "amount": "NaN"}',
    error: ToolInputError,
    code: 'INVALID_ARGUMENTS',
    constraint: 'isNumber',
  },
  {
    label: 'Infinity as a string',
    args: () => '{"account": "a", "amount": "Infinity"}',
    error: ToolInputError,
    code: 'INVALID_ARGUMENTS',
    constraint: 'isNumber',
  },
  {
    label: 'a raw NaN token',
    args: () => '{"account": "a", "amount": NaN}',
    error: ToolInputError,
    code: 'INVALID_JSON',
    constraint: 'isJson',
  },
  {
    label: 'a raw Infinity token',
    args: () => '{"account": "a", "amount": -Infinity}',
    error: ToolInputError,
    code: 'INVALID_JSON',
    constraint: 'isJson',
  },
  {
    label: 'NaN passed in an object',
    args: () => ({ account: 'a', amount: NaN }),
    error: ToolInputError,
    code: 'INVALID_ARGUMENTS',
    constraint: 'isNumber',
  },
  {
    label: 'Infinity passed in an object',
    args: () => ({ account: 'a', amount: Infinity }),
    error: ToolInputError,
    code: 'INVALID_ARGUMENTS',
    constraint: 'isNumber',
  },
  { label: 'an unknown tool', tool: 'transfer_all_money', args: () => '{}', error: ToolNotFoundError, code: 'TOOL_NOT_FOUND' },
  { label: 'a tool that throws', tool: 'throws', args: () => '{}', error: ToolExecutionError, code: 'TOOL_FAILED' },
  { label: 'a tool that returns invalid JSON', tool: 'bad_json', args: () => '{}', error: ToolOutputError, code: 'INVALID_OUTPUT' },
  { label: 'a tool that breaks its output contract', tool: 'bad_output', args: () => '{}', error: ToolOutputError, code: 'INVALID_OUTPUT' },
  { label: 'a tool that hangs', tool: 'hangs', args: () => '{}', error: ToolTimeoutError, code: 'TOOL_TIMEOUT' },
];

describe('bad input', () => {
  test.each(rows)('$label → $code', async ({ tool = 'transfer', args, error: errorClass, code, constraint, path }) => {
    const error = await registry.call(tool, args()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(errorClass);
    expect((error as ToolwrightError).code).toBe(code);
    if (constraint !== undefined) expect((error as ToolInputError).errors[0].constraint).toBe(constraint);
    if (path !== undefined) expect((error as ToolInputError).errors[0].path).toBe(path);
    // What the model would see is compact JSON naming the code, never a stack.
    const result = JSON.parse((error as ToolwrightError).toToolResult()) as { code: string };
    expect(result.code).toBe(code);
    expect((error as ToolwrightError).toToolResult()).not.toMatch(/\n\s+at /);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('lists the available tools for an unknown name', async () => {
    const error = await registry.call('nope', '{}').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolNotFoundError);
    expect((error as ToolNotFoundError).available).toEqual(['transfer', 'echo', 'throws', 'bad_json', 'bad_output', 'hangs']);
    expect((error as ToolNotFoundError).message).toContain('Available tools: transfer, echo, throws, bad_json, bad_output, hangs.');
  });

  it('reports every wrong field at once', async () => {
    const error = await registry.call('transfer', '{"account": 5, "amount": "five", "x": 1}').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolInputError);
    expect((error as ToolInputError).errors.map((e) => `${e.path}:${e.constraint}`).sort()).toEqual([
      'account:isString',
      'amount:isNumber',
      'x:whitelistValidation',
    ]);
  });

  it('still serves valid calls after all of the above, with no prototype polluted', async () => {
    await expect(registry.call('transfer', '{"account": "A-1", "amount": 12.5, "memo": "rent"}')).resolves.toBe(
      '{"status":"ok","account":"A-1","amount":12.5}',
    );
    await expect(registry.call('transfer', { account: 'A-2', amount: 1, meta: { source: 'web' } })).resolves.toBe(
      '{"status":"ok","account":"A-2","amount":1}',
    );
    await expect(registry.call('echo', '{"nested": {"ok": [1, 2]}}')).resolves.toBe('{"nested":{"ok":[1,2]}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });
});
