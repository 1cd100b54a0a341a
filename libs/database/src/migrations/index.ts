import { InitialSchema1763800000000 } from './1763800000000-initial-schema';

/** Listed explicitly (not globbed) so the compiled app and jest load the same set. */
export const ALL_MIGRATIONS = [InitialSchema1763800000000];
