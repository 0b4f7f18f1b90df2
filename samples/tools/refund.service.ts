// Before any decorated class: typedi injects from the constructor types this polyfill records.
import 'reflect-metadata';
import { Service } from 'typedi';
import { IdempotencyLedger } from 'toolwright';
import type { Order } from './orders.db';

export interface Refund {
  id: string;
  orderId: string;
  /** Integer minor units (cents), like every amount here. */
  amountCents: number;
  currency: string;
  reason: string;
  requestedBy: string;
  status: 'approved';
}

export interface RefundRequest {
  order: Order;
  /** Omitted: whatever is still refundable. Integer cents. */
  amountCents?: number;
  reason: string;
  requestedBy: string;
  /**
   * The same key never refunds twice: a retried tool call gets the first refund back, and the
   * key reused with different arguments is refused (IdempotencyConflictError).
   */
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
 * In memory here; a real one would use a transaction and a unique index on the key, and a ledger
 * on the store's claims (`new IdempotencyLedger<Refund>(store.idempotency('refunds'))`), so that
 * processes sharing the store pay each key once.
 */
@Service()
export class RefundService {
  private readonly refunds: Refund[] = [];
  private readonly ledger = new IdempotencyLedger<Refund>();

  async process(request: RefundRequest): Promise<RefundOutcome> {
    const { order } = request;
    // The payload the key stands for: the same key with another order, amount or reason is refused.
    const payload = { orderId: order.id, amountCents: request.amountCents, reason: request.reason, requestedBy: request.requestedBy };
    const { result, replayed } = await this.ledger.once(request.idempotencyKey, payload, () => this.pay(request));
    return { refund: result, replayed };
  }

  refundsFor(orderId: string): readonly Refund[] {
    return this.refunds.filter((r) => r.orderId === orderId);
  }

  /** Checks and records in one synchronous step, so two refunds can never add up to more than the total. */
  private pay(request: RefundRequest): Refund {
    const { order } = request;
    const refundable = order.totalCents - this.refundedSoFar(order.id);
    if (refundable <= 0) throw new RefundRejected(`Order ${order.id} has already been fully refunded`);
    const amountCents = request.amountCents ?? refundable;
    if (!Number.isSafeInteger(amountCents) || amountCents <= 0)
      throw new RefundRejected('The refund amount must be a positive whole number of cents');
    if (amountCents > refundable) {
      throw new RefundRejected(
        `Refund amount ${amountCents} cents exceeds the refundable balance of ${refundable} cents (${order.currency})`,
      );
    }
    const refund: Refund = {
      id: `RF-${this.refunds.length + 1}`,
      orderId: order.id,
      amountCents,
      currency: order.currency,
      reason: request.reason,
      requestedBy: request.requestedBy,
      status: 'approved',
    };
    this.refunds.push(refund);
    return refund;
  }

  private refundedSoFar(orderId: string): number {
    return this.refundsFor(orderId).reduce((sum, r) => sum + r.amountCents, 0);
  }
}
