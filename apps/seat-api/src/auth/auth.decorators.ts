import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { AuthUser } from './auth-user';

export const IS_PUBLIC = 'auth:public';
export const REQUIRED_ROLES = 'auth:roles';

/** No token needed (health, metrics, docs). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** The token's `roles` must include each of these (an admin has every role: roles.ts). */
export const Roles = (...roles: string[]) => SetMetadata(REQUIRED_ROLES, roles);

/** The authenticated caller, as the guard verified it. */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthUser => {
  return ctx.switchToHttp().getRequest<{ user: AuthUser }>().user;
});
