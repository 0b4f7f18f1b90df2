/** A refund ledger that refuses to pay twice for the same idempotency key (the agent tests' side effect). */
export class Ledger {
  readonly refunds: Array<{ order: string; amount: number; key: string }> = [];
  pay(order: string, amount: number, key: string | undefined) {
    if (!key) throw new Error('no idempotency key');
    const earlier = this.refunds.find((r) => r.key === key);
    if (earlier) return { status: 'already_refunded', order: earlier.order, amount: earlier.amount };
    this.refunds.push({ order, amount, key });
    return { status: 'refunded', order, amount };
  }
}
