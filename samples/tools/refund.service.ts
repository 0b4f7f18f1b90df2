// Before any decorated class: typedi injects from the constructor types this polyfill records.
import 'reflect-metadata';
import { Service } from 'typedi';
import type { Order } from './orders.db';

export interface Refund {
  id: string;
  orderId: string;
  amount: number;
  reason: string;
  requestedBy: string;
  status: 'approved';
}

export interface RefundRequest {
  order: Order;
  /** Omitted: whatever is still refundable. */
  amount?: number;
  reason: string;
  requestedBy: string;
  /** The same key never refunds twice: a retried tool call gets the first refund back. */
  idempotencyKey?: string;
}

export interface RefundOutcome {
  refund: Refund;
  /** true when the idempotency key had been used: nothing new was refunded. */
  replayed: boolean;
}

/** An expected refusal the customer can act on (as opposed to an outage, which throws anything else). */
export class RefundRejected extends Error {
  override readonly name = 'RefundRejected';
}

/**
 * Owns the refund policy: how much may be refunded and that a retry never pays out twice.
 * In memory here; a real one would use a transaction and a unique index on the key.
 */
@Service()
export class RefundService {
  private readonly refunds: Refund[] = [];
  private readonly byIdempotencyKey = new Map<string, Refund>();

  process(request: RefundRequest): RefundOutcome {
    const { order, idempotencyKey } = request;
    const earlier = idempotencyKey === undefined ? undefined : this.byIdempotencyKey.get(idempotencyKey);
    if (earlier) return { refund: earlier, replayed: true };

    const refundable = round(order.total - this.refundedSoFar(order.id));
    if (refundable <= 0) throw new RefundRejected(`Order ${order.id} has already been fully refunded`);
    const amount = request.amount ?? refundable;
    if (amount > refundable) {
      throw new RefundRejected(`Refund amount ${amount} exceeds the refundable balance of ${refundable} ${order.currency}`);
    }

    const refund: Refund = {
      id: `RF-${this.refunds.length + 1}`,
      orderId: order.id,
      amount,
      reason: request.reason,
      requestedBy: request.requestedBy,
      status: 'approved',
    };
    this.refunds.push(refund);
    if (idempotencyKey !== undefined) this.byIdempotencyKey.set(idempotencyKey, refund);
    return { refund, replayed: false };
  }

  refundsFor(orderId: string): readonly Refund[] {
    return this.refunds.filter((r) => r.orderId === orderId);
  }

  private refundedSoFar(orderId: string): number {
    return this.refundsFor(orderId).reduce((sum, r) => sum + r.amount, 0);
  }
}

/** Money in cents, so 59.9 - 20 is 39.9 and not 39.899999999999999. */
function round(amount: number): number {
  return Math.round(amount * 100) / 100;
}
