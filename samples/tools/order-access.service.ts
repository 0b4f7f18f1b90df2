// Before any decorated class: typedi injects from the constructor types this polyfill records.
import 'reflect-metadata';
import { Service } from 'typedi';
import type { AgentContext } from 'toolwright';
import { OrderDatabase, type Order } from './orders.db';

/** Who is asking: the signed-in user of one tenant (from the agent run, never from the model). */
export interface CustomerScope {
  tenantId: string;
  userId: string;
}

/**
 * The caller's scope from the session: the signed-in user (PHP-kit style, from state the runner
 * writes) and the tenant of the run. `undefined` when either is missing: nobody is signed in.
 */
export function customerScope(context: AgentContext): CustomerScope | undefined {
  const userId = context.userId ?? context.getState<string>('user_id');
  const tenantId = context.tenantId;
  return userId && tenantId ? { tenantId, userId } : undefined;
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

  /** The order if this customer owns it; otherwise `undefined`, the same for "missing" and "someone else's". */
  findOwn(scope: CustomerScope, orderId: string): Order | undefined {
    const order = this.find(scope, orderId);
    return order && this.canRead(scope, order) ? order : undefined;
  }

  /** The customer's own orders, newest first. */
  listOwn(scope: CustomerScope, limit: number): Order[] {
    return this.db.listForUser(scope, limit);
  }
}
