// Before any decorated class: typedi injects from the constructor types this polyfill records.
import 'reflect-metadata';
import { Service } from 'typedi';
import { OrderDatabase, type Order } from './orders.db';

/** Who is asking: the signed-in user of one tenant (from the agent run, never from the model). */
export interface CustomerScope {
  tenantId: string;
  userId: string;
}

/**
 * Tenant-scoped reads. Orders of another tenant do not exist for this scope at all; orders of
 * another customer of the same tenant exist but may not be read.
 */
@Service()
export class OrderAccessService {
  constructor(private readonly db: OrderDatabase) {}

  find(scope: CustomerScope, orderId: string): Order | undefined {
    const order = this.db.find(orderId);
    return order?.tenantId === scope.tenantId ? order : undefined;
  }

  canRead(scope: CustomerScope, order: Order): boolean {
    return order.tenantId === scope.tenantId && order.userId === scope.userId;
  }
}
