import Ajv from 'ajv';
import { runContender } from './harness';
import { executeRefund, invalidArguments, STATUSES, type RefundArgs } from './workload';

/** The least any validating tool call can do: JSON.parse, one compiled Ajv validator, execute, JSON.stringify. */
const validate = new Ajv().compile<RefundArgs>({
  type: 'object',
  properties: {
    order_id: { type: 'string', minLength: 1 },
    amount: { type: 'number', minimum: 0 },
    reason: { type: 'string', minLength: 1 },
    status: { type: 'string', enum: [...STATUSES] },
    tags: { type: 'array', items: { type: 'string' } },
    address: {
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' }, zip: { type: 'string' } },
      required: ['street', 'city', 'zip'],
      additionalProperties: false,
    },
  },
  required: ['order_id', 'reason', 'status'],
  additionalProperties: false,
});

export function call(args: string): string {
  const value: unknown = JSON.parse(args);
  if (!validate(value)) {
    return invalidArguments(
      validate.errors!.map((e) => ({
        path: e.instancePath.slice(1).replace(/\//g, '.'),
        message: `${e.instancePath.slice(1)} ${e.message}`,
        constraint: e.keyword,
      })),
    );
  }
  return JSON.stringify(executeRefund(value));
}

if (require.main === module) void runContender('floor', call);
