/**
 * The process_refund workload every contender runs: the same input contract, the same 1000
 * orders, the same argument strings, the same result. Only the validation layer differs.
 */

export const STATUSES = ['pending', 'processing', 'completed'] as const;

export interface Order {
  id: string;
  userId: string;
  total: number;
}

/** 1000 orders, O-0000 … O-0999. */
export const ORDERS: ReadonlyMap<string, Order> = new Map(
  Array.from({ length: 1000 }, (_, i) => {
    const id = `O-${String(i).padStart(4, '0')}`;
    return [id, { id, userId: `u-${i % 50}`, total: 10 + (i % 200) }] as const;
  }),
);

const args = {
  order_id: 'O-0421',
  amount: 12.5,
  reason: 'arrived damaged',
  status: 'completed',
  tags: ['damaged', 'priority'],
  address: { street: '1 Main St', city: 'Springfield', zip: '12345' },
};

/** What the model sends, as the JSON string it arrives as. */
export const VALID_ARGS = JSON.stringify(args);
/** The same call with one bad field. */
export const INVALID_ARGS = JSON.stringify({ ...args, amount: -1 });

const REASONS = ['arrived damaged', 'wrong size', 'never arrived', 'changed my mind', 'duplicate order', 'late delivery'];
const TAGS = ['damaged', 'priority', 'repeat', 'vip', 'fragile'];

/**
 * 1024 distinct calls of the same shape, fed in rotation as real traffic is (one repeated string
 * would let caches keyed by the text, and the CPU's branch predictors, flatter every contender).
 */
export const VALID_ROTATION: readonly string[] = Array.from({ length: 1024 }, (_, i) =>
  i === 0
    ? VALID_ARGS
    : JSON.stringify({
        order_id: `O-${String(i % 1000).padStart(4, '0')}`,
        amount: (i % 97) + 0.5,
        reason: `${REASONS[i % REASONS.length]} #${i}`,
        status: STATUSES[i % STATUSES.length],
        tags: [TAGS[i % TAGS.length], TAGS[(i >> 3) % TAGS.length]],
        address: { street: `${i} Main St`, city: i % 2 ? 'Springfield' : 'Shelbyville', zip: String(10000 + i) },
      }),
);
/** The same 1024 calls, each with one bad field (a negative amount). */
export const INVALID_ROTATION: readonly string[] = VALID_ROTATION.map((text, i) =>
  JSON.stringify({ ...JSON.parse(text), amount: -1 - (i % 50) }),
);

export interface RefundArgs {
  order_id: string;
  amount?: number;
}

export type RefundResult = { status: 'success'; refund_id: string; amount: number } | { status: 'error'; message: string };

/** The tool's work: look the order up, answer with the refund. */
export function executeRefund({ order_id, amount }: RefundArgs): RefundResult {
  const order = ORDERS.get(order_id);
  if (!order) return { status: 'error', message: 'Order not found' };
  return { status: 'success', refund_id: `R-${order.id}`, amount: amount ?? order.total };
}

/** The result every contender must produce for VALID_ARGS. */
export const EXPECTED_VALID = JSON.stringify({ status: 'success', refund_id: 'R-O-0421', amount: 12.5 });

/** The field errors every contender reports the same way. */
export interface FieldError {
  path: string;
  message: string;
  constraint: string;
}

/** The error JSON the contenders other than toolwright produce (toolwright's toToolResult shape). */
export function invalidArguments(errors: FieldError[]): string {
  return JSON.stringify({
    status: 'error',
    code: 'INVALID_ARGUMENTS',
    message: `Invalid arguments for tool "process_refund": ${errors.map((e) => e.message).join('; ')}`,
    errors,
  });
}
