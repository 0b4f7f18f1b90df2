import { z } from 'zod';
import { runContender } from './harness';
import { executeRefund, invalidArguments, STATUSES } from './workload';

const RefundInput = z.strictObject({
  order_id: z.string().min(1),
  amount: z.number().min(0).optional(),
  reason: z.string().min(1),
  status: z.enum(STATUSES),
  tags: z.array(z.string()).optional(),
  address: z.strictObject({ street: z.string(), city: z.string(), zip: z.string() }).optional(),
});

void runContender('zod', (args) => {
  const parsed = RefundInput.safeParse(JSON.parse(args));
  if (!parsed.success) {
    return invalidArguments(parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message, constraint: i.code })));
  }
  return JSON.stringify(executeRefund(parsed.data));
});
