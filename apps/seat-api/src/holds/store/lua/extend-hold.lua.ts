import { PRELUDE } from './prelude.lua';

/**
 * New expiry = now + ttl. ARGV[4] hid, [5] userId, [6] ttlMs, [7] max extensions, [8] fencing token.
 * Refused past the lifetime cap (createdAt + cap) or the extension count cap, so nobody holds forever.
 */
export const EXTEND_HOLD = `${PRELUDE}
local h = settle(load(ARGV[4]))
if not h or h.user ~= ARGV[5] then return { 'HOLD_NOT_FOUND' } end
if h.status ~= 'ACTIVE' then return { 'HOLD_NOT_ACTIVE', view(h) } end
if h.ext >= tonumber(ARGV[7]) then return { 'EXTENSION_LIMIT_REACHED', view(h) } end
local expire = NOW + tonumber(ARGV[6])
if expire > h.max then return { 'HOLD_LIFETIME_EXCEEDED', view(h) } end
local token = tonumber(ARGV[8])
if stale(h.seats, token) then return { 'STALE_FENCING_TOKEN', view(h) } end
for _, s in ipairs(h.seats) do set_seat(s, 'H', h.hid, expire, token) end
h.expire, h.ext, h.fence = expire, h.ext + 1, token
save(h)
redis.call('ZADD', K_DUE, expire, h.hid)
return { 'OK', view(h) }
`;
