export interface AuthUser {
  /** JWT `sub`: the holder of every hold this caller makes. */
  id: string;
  roles: string[];
}
