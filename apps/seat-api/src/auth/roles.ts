/**
 * The staff roles a token's `roles` may carry. `admin` may do everything, so it passes any role
 * requirement (`@Roles(Role.AGENT)` admits admins too); `agent` is box-office staff: hold on behalf of a
 * customer, read any hold and booking. A token without either is a customer's (the waiting list's
 * service role aside).
 */
export const Role = {
  ADMIN: 'admin',
  AGENT: 'agent',
  /**
   * The waiting list's own calls (apps/waitlist): its offers are holds of the customer's, made through the
   * customer routes; they need no admission pass of an on-sale queue, as staff's holds do not.
   */
  WAITLIST: 'waitlist',
} as const;

/** Whether a caller with `roles` has `role`: an admin has every role. */
export function hasRole(roles: readonly string[], role: string): boolean {
  return roles.includes(role) || roles.includes(Role.ADMIN);
}
