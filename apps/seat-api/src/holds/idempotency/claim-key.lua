-- Claims an Idempotency-Key: NEW (go ahead; the key holds ARGV[2], 'P|<fingerprint>|<claim token>', for
-- ARGV[3] ms, until the request's answer replaces it or the request frees it), IN_PROGRESS (a request with
-- this key is still running), MISMATCH (the key names another request), or DONE with the stored answer.
-- KEYS[1] = the key; ARGV[1] = the request's fingerprint.
local v = redis.call('GET', KEYS[1])
if not v then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return { 'NEW' }
end
local state, fp, rest = string.match(v, '^(%a)|([^|]*)|?(.*)$')
if fp ~= ARGV[1] then return { 'MISMATCH' } end
if state == 'P' then return { 'IN_PROGRESS' } end
return { 'DONE', rest }
