import 'reflect-metadata';
import fc from 'fast-check';
import { IsInt, IsOptional, IsString, Min, Validate, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { ModelRetryError, Param, Tool, ToolRegistry, ToolwrightError, type ToolDefinition } from 'toolwright';

/*
 * `registry.call` settles the common call (a visible tool, no approval, signal, timeout or call id)
 * without the general path's async frames. Both paths must answer every call the same way: the
 * same result, or the same error (class, code, field errors), and never a synchronous throw.
 */

@ValidatorConstraint({ name: 'notTaken', async: true })
class NotTaken implements ValidatorConstraintInterface {
  async validate(value: unknown): Promise<boolean> {
    await new Promise((resolve) => setImmediate(resolve));
    return value !== 'taken';
  }
}

class Input {
  @Param() @IsString() name!: string;
  @Param() @IsOptional() @IsInt() @Min(0) qty?: number;
}

class AsyncCheckedInput {
  @Param() @IsString() @Validate(NotTaken) name!: string;
}

type Behaviour = 'object' | 'string' | 'async' | 'throws' | 'rejects' | 'retry' | 'undefined' | 'not-json';

function tool(name: string, behaviour: Behaviour, input: new () => object = Input) {
  @Tool({ name, description: name, input })
  class T {
    execute(args: { name: string }): unknown {
      switch (behaviour) {
        case 'object':
          return { hello: args.name };
        case 'string':
          return JSON.stringify({ hello: args.name });
        case 'async':
          return Promise.resolve({ hello: args.name });
        case 'throws':
          throw new Error(`failed for ${args.name}`);
        case 'rejects':
          return Promise.reject(new Error('rejected'));
        case 'retry':
          throw new ModelRetryError('try another name');
        case 'undefined':
          return undefined;
        case 'not-json':
          return 'not json';
      }
    }
  }
  return T;
}

class HandWritten {
  definition(): ToolDefinition {
    return {
      name: 'hand',
      description: 'hand-written schema',
      parameters: {
        type: 'object',
        properties: { name: { type: 'string' }, qty: { type: 'integer' } },
        required: ['name'],
        additionalProperties: false,
      },
    };
  }
  execute(args: { name: string }): object {
    return { hello: args.name };
  }
}

const behaviours: Behaviour[] = ['object', 'string', 'async', 'throws', 'rejects', 'retry', 'undefined', 'not-json'];
const registry = ToolRegistry.build({
  tools: [...behaviours.map((b) => tool(b, b)), tool('async_check', 'object', AsyncCheckedInput), HandWritten],
});

type Outcome = { ok: string } | { error: string; code?: string; errors?: unknown; omitted?: number; message: string };

async function outcome(promise: Promise<string>): Promise<Outcome> {
  return promise.then(
    (ok) => ({ ok }),
    (e: unknown) => {
      expect(e).toBeInstanceOf(ToolwrightError);
      const error = e as ToolwrightError & { errors?: unknown; omitted?: number };
      return { error: error.constructor.name, code: error.code, errors: error.errors, omitted: error.omitted, message: error.message };
    },
  );
}

const args = fc.oneof(
  fc
    .record({ name: fc.constantFrom('ann', 'taken', ''), qty: fc.constantFrom(1, -1, 'x') }, { requiredKeys: [] })
    .map((v) => JSON.stringify(v)),
  fc.constantFrom('', '{', '[]', 'null', '{"name":"a","name":"b"}', '{"__proto__":{"x":1},"name":"a"}', '{"name":"a","extra":1}'),
  fc.record({ name: fc.constantFrom('ann', 5) }),
);

test('the direct path and the general path answer every call alike, and never throw synchronously', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...registry.names(), 'missing'), args, async (name, input) => {
      let direct!: Promise<string>;
      let general!: Promise<string>;
      expect(() => (direct = registry.call(name, input))).not.toThrow();
      // A logical call id is one of the options only the general path serves.
      expect(() => (general = registry.call(name, input, undefined, undefined, { logicalCallId: 'c-1' }))).not.toThrow();
      expect(await outcome(direct)).toEqual(await outcome(general));
    }),
    { seed: 12, numRuns: 300 },
  );
});
