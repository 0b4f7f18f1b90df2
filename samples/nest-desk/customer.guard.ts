import { Injectable, UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { DEMO_TOKENS, type Customer } from '../chat-desk/server';

/** What the guard puts on the request: the principal toolwright's controllers read (`id`, `tenantId`). */
export interface RequestUser {
  id: string;
  tenantId: string;
}

/**
 * The app's authentication, as any Nest app has it: `Authorization: Bearer <token>` is looked up
 * (a real app verifies a JWT or a session here, or uses Passport) and becomes `request.user`;
 * anything else is refused with 401 before a tool is reached.
 */
@Injectable()
export class CustomerGuard implements CanActivate {
  static tokens: Readonly<Record<string, Customer>> = DEMO_TOKENS;

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined>; user?: RequestUser }>();
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const customer = token === undefined ? undefined : CustomerGuard.tokens[token];
    if (!customer) throw new UnauthorizedException('Sign in first (Authorization: Bearer <token>).');
    request.user = { id: customer.userId, tenantId: customer.tenantId };
    return true;
  }
}
