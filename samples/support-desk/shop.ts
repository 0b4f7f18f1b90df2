import { OrderDatabase, RefundService, seedOrders, type Order } from '../tools';

/** The customer the demo signs in as, and the shop (tenant) she buys from. */
export const CUSTOMER = { userId: 'alice', tenantId: 'acme' } as const;

/**
 * The seeded order database of the demo: alice owns and a dozen older orders; bob
 * (same shop) owns A-200; carol buys from another shop (G-300). Fresh for every process.
 */
export interface Shop {
  db: OrderDatabase;
  refunds: RefundService;
}

export function seedShop(orders: readonly Order[] = seedOrders()): Shop {
  return { db: OrderDatabase.with(orders), refunds: new RefundService() };
}
