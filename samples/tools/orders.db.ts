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
  unitPrice: number;
}

export interface Order {
  id: string;
  tenantId: string;
  userId: string;
  total: number;
  currency: string;
  fulfillmentStatus: FulfillmentStatus;
  createdAt: string;
  items: OrderItem[];
}

/** What a customer may see of an order (no tenant or owner ids). */
export function orderSummary(order: Order) {
  return {
    id: order.id,
    total: order.total,
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
      total: 59.9,
      currency: 'USD',
      fulfillmentStatus: 'shipped',
      createdAt: '2026-03-02T10:15:00.000Z',
      items: [
        { sku: 'MUG-01', name: 'Enamel mug', quantity: 2, unitPrice: 14.95 },
        { sku: 'TEE-07', name: 'Logo T-shirt', quantity: 1, unitPrice: 30 },
      ],
    },
    {
      id: 'A-101',
      tenantId: 'acme',
      userId: 'alice',
      total: 120,
      currency: 'USD',
      fulfillmentStatus: 'delivered',
      createdAt: '2026-02-20T08:00:00.000Z',
      items: [{ sku: 'BAG-03', name: 'Canvas backpack', quantity: 1, unitPrice: 120 }],
    },
    {
      id: 'A-200',
      tenantId: 'acme',
      userId: 'bob',
      total: 42,
      currency: 'USD',
      fulfillmentStatus: 'processing',
      createdAt: '2026-03-01T12:00:00.000Z',
      items: [{ sku: 'CAP-02', name: 'Baseball cap', quantity: 2, unitPrice: 21 }],
    },
    {
      id: 'G-300',
      tenantId: 'globex',
      userId: 'carol',
      total: 99,
      currency: 'EUR',
      fulfillmentStatus: 'delivered',
      createdAt: '2026-01-15T09:30:00.000Z',
      items: [{ sku: 'LAMP-9', name: 'Desk lamp', quantity: 1, unitPrice: 99 }],
    },
  ];
  // Alice is a regular: a dozen older orders, so that listing her orders has something to limit.
  for (let i = 1; i <= 12; i++) {
    const day = String(i).padStart(2, '0');
    orders.push({
      id: `A-${1000 + i}`,
      tenantId: 'acme',
      userId: 'alice',
      total: 10 + i,
      currency: 'USD',
      fulfillmentStatus: 'delivered',
      createdAt: `2025-12-${day}T10:00:00.000Z`,
      items: [{ sku: 'SOCK-01', name: 'Wool socks', quantity: 1, unitPrice: 10 + i }],
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

  /** One user's orders, newest first. */
  listForUser(userId: string, limit: number): Order[] {
    return [...this.orders.values()]
      .filter((o) => o.userId === userId)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, limit)
      .map((o) => structuredClone(o));
  }
}
