import { PRELUDE } from './prelude.lua';

/** Read-only. ARGV[4] hid. Replies {'OK', hold} or {'HOLD_NOT_FOUND'}; an unswept expired hold reads EXPIRED. */
export const READ_HOLD = `${PRELUDE}
local h = load(ARGV[4])
if not h then return { 'HOLD_NOT_FOUND' } end
return { 'OK', view(h) }
`;
