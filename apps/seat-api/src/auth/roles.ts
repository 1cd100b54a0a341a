/**
 * The staff roles a token's `roles` may carry. `admin` may do everything, so it passes any role
 * requirement (`@Roles(Role.AGENT)` admits admins too); `agent` is box-office staff: hold on behalf of a
 * customer, read any hold and booking. A token without either is a customer's.
 */
export const Role = {
  ADMIN: 'admin',
  AGENT: 'agent',
} as const;

/** Whether a caller with `roles` has `role`: an admin has every role. */
export function hasRole(roles: readonly string[], role: string): boolean {
  return roles.includes(role) || roles.includes(Role.ADMIN);
}
