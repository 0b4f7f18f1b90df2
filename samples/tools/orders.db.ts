// Before any decorated class: typedi injects from the constructor types this polyfill records.
import 'reflect-metadata';
import { Service } from 'typedi';

/** Where a parcel is; the states the model may see. */
export const FULFILLMENT_STATUSES = ['processing', 'shipped', 'delivered'] as const;
export type FulfillmentStatus = (typeof FULFILLMENT_STATUSES)[number];

export interface OrderItem {
  sku: string;
  name: string;
  quantity: number;
  /** Money in integer minor units (cents): sums and differences are exact. */
  unitPriceCents: number;
}

export interface Order {
  id: string;
  tenantId: string;
  userId: string;
  /** Money in integer minor units (cents): sums and differences are exact. */
  totalCents: number;
  currency: string;
  fulfillmentStatus: FulfillmentStatus;
  createdAt: string;
  items: OrderItem[];
}

/** What a customer may see of an order (no tenant or owner ids). */
export function orderSummary(order: Order) {
  return {
    id: order.id,
    totalCents: order.totalCents,
    currency: order.currency,
    fulfillmentStatus: order.fulfillmentStatus,
    createdAt: order.createdAt,
  };
}

/** The same small shop every sample, test and the support-desk demo start from. */
export function seedOrders(): Order[] {
  const orders: Order[] = [
    {
      id: 'A-100',
      tenantId: 'acme',
      userId: 'alice',
      totalCents: 5990,
      currency: 'USD',
      fulfillmentStatus: 'shipped',
      createdAt: '2026-03-02T10:15:00.000Z',
      items: [
        { sku: 'MUG-01', name: 'Enamel mug', quantity: 2, unitPriceCents: 1495 },
        { sku: 'TEE-07', name: 'Logo T-shirt', quantity: 1, unitPriceCents: 3000 },
      ],
    },
    {
      id: 'A-101',
      tenantId: 'acme',
      userId: 'alice',
      totalCents: 12000,
      currency: 'USD',
      fulfillmentStatus: 'delivered',
      createdAt: '2026-02-20T08:00:00.000Z',
      items: [{ sku: 'BAG-03', name: 'Canvas backpack', quantity: 1, unitPriceCents: 12000 }],
    },
    {
      id: 'A-200',
      tenantId: 'acme',
      userId: 'bob',
      totalCents: 4200,
      currency: 'USD',
      fulfillmentStatus: 'processing',
      createdAt: '2026-03-01T12:00:00.000Z',
      items: [{ sku: 'CAP-02', name: 'Baseball cap', quantity: 2, unitPriceCents: 2100 }],
    },
    {
      id: 'G-300',
      tenantId: 'globex',
      userId: 'carol',
      totalCents: 9900,
      currency: 'EUR',
      fulfillmentStatus: 'delivered',
      createdAt: '2026-01-15T09:30:00.000Z',
      items: [{ sku: 'LAMP-9', name: 'Desk lamp', quantity: 1, unitPriceCents: 9900 }],
    },
  ];
  // Another shop has a customer named alice too: she and acme's alice must never see each other's orders.
  orders.push({
    id: 'G-301',
    tenantId: 'globex',
    userId: 'alice',
    totalCents: 25000,
    currency: 'EUR',
    fulfillmentStatus: 'delivered',
    createdAt: '2026-04-01T09:00:00.000Z',
    items: [{ sku: 'CHAIR-1', name: 'Office chair', quantity: 1, unitPriceCents: 25000 }],
  });
  // Alice is a regular: a dozen older orders, so that listing her orders has something to limit.
  for (let i = 1; i <= 12; i++) {
    const day = String(i).padStart(2, '0');
    orders.push({
      id: `A-${1000 + i}`,
      tenantId: 'acme',
      userId: 'alice',
      totalCents: (10 + i) * 100,
      currency: 'USD',
      fulfillmentStatus: 'delivered',
      createdAt: `2025-12-${day}T10:00:00.000Z`,
      items: [{ sku: 'SOCK-01', name: 'Wool socks', quantity: 1, unitPriceCents: (10 + i) * 100 }],
    });
  }
  return orders;
}

/**
 * The app's data layer, faked in memory. A real app would wrap its ORM here; tools only see
 * these methods, so a test can hand the registry any rows it likes.
 */
@Service()
export class OrderDatabase {
  private readonly orders = new Map<string, Order>();

  constructor() {
    this.insert(...seedOrders());
  }

  /** A database holding exactly these orders. */
  static with(orders: readonly Order[]): OrderDatabase {
    const db = new OrderDatabase();
    db.orders.clear();
    db.insert(...orders);
    return db;
  }

  insert(...orders: readonly Order[]): void {
    for (const order of orders) this.orders.set(order.id, structuredClone(order));
  }

  /** A copy: callers cannot change the stored row by accident. */
  find(id: string): Order | undefined {
    const order = this.orders.get(id);
    return order && structuredClone(order);
  }

  /** One customer's orders (a user of one tenant), newest first. */
  listForUser(scope: { tenantId: string; userId: string }, limit: number): Order[] {
    return [...this.orders.values()]
      .filter((o) => o.tenantId === scope.tenantId && o.userId === scope.userId)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, limit)
      .map((o) => structuredClone(o));
  }
}
