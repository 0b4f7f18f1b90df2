import { AgentContext, Tool, ToolInputError, ToolInterface, ToolRegistry } from 'toolwright';
import { Address, BasicParams, ComplexParams } from './complex-params';

@Tool({ name: 'update_user', description: 'Update a user', input: BasicParams })
class UpdateUserTool implements ToolInterface<BasicParams> {
  execute(args: BasicParams) {
    return { status: 'success', received: args };
  }
}

@Tool({ name: 'find_orders', description: 'Find orders', input: ComplexParams })
class FindOrdersTool implements ToolInterface<ComplexParams> {
  execute(args: ComplexParams) {
    return { status: 'success', addressIsAddress: args.address instanceof Address, received: args };
  }
}

const registry = () => ToolRegistry.build({ tools: [UpdateUserTool, FindOrdersTool] });
const context = new AgentContext({ sessionId: 's-1' });

async function errorsOf(name: string, args: object) {
  const error = await registry()
    .call(name, args, context)
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ToolInputError);
  return (error as ToolInputError).errors;
}

describe('the PHP kit parameter examples as classes', () => {
  it('Basic Parameter Types: the schema an author would write, plus additionalProperties false', () => {
    expect(registry().get('update_user').definition().parameters).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', description: 'User name' },
        age: { type: 'integer', description: 'User age', minimum: 0, maximum: 150 },
        active: { type: 'boolean', description: 'Whether user is active' },
        price: { type: 'number', description: 'Product price', minimum: 0 },
      },
      required: ['name'],
      additionalProperties: false,
    });
  });

  it('Complex Parameter Types: enum, string array, nested object (which gets its own required list)', () => {
    // The kit writes `required: []`; an empty list is simply left out.
    expect(registry().get('find_orders').definition().parameters).toEqual({
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['pending', 'processing', 'completed'], description: 'Order status' },
        tags: { type: 'array', description: 'List of tags', items: { type: 'string' } },
        address: {
          type: 'object',
          description: 'User address',
          properties: { street: { type: 'string' }, city: { type: 'string' }, zip: { type: 'string' } },
          required: ['street', 'city', 'zip'],
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    });
  });

  it('enforces what the schema says: bounds, integers, enums, item types, nested fields', async () => {
    expect(await errorsOf('update_user', { name: 'Ann', age: 151 })).toEqual([
      { path: 'age', constraint: 'max', message: 'age must not be greater than 150' },
    ]);
    expect(await errorsOf('update_user', { name: 'Ann', age: 30.5, price: -1 })).toMatchObject([
      { path: 'age', constraint: 'isInt' },
      { path: 'price', constraint: 'min' },
    ]);
    expect(await errorsOf('find_orders', { status: 'shipped' })).toMatchObject([{ path: 'status', constraint: 'isIn' }]);
    expect(await errorsOf('find_orders', { tags: ['ok', 7] })).toMatchObject([{ path: 'tags[1]', constraint: 'isString' }]);
    expect(await errorsOf('find_orders', { address: { street: '1 Main St', city: 'Springfield' } })).toMatchObject([
      { path: 'address.zip', constraint: 'isDefined' },
    ]);
  });

  it('hands execute real instances, nested classes included', async () => {
    const out = JSON.parse(
      await registry().call(
        'find_orders',
        { status: 'pending', tags: ['vip'], address: { street: '1 Main St', city: 'Springfield', zip: '12345' } },
        context,
      ),
    );
    expect(out).toEqual({
      status: 'success',
      addressIsAddress: true,
      received: { status: 'pending', tags: ['vip'], address: { street: '1 Main St', city: 'Springfield', zip: '12345' } },
    });
    expect(JSON.parse(await registry().call('find_orders', {}, context))).toEqual({
      status: 'success',
      addressIsAddress: false,
      received: {},
    });
  });
});
