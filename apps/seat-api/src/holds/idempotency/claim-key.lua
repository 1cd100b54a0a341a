-- Claims an Idempotency-Key (KEY.key): NEW (go ahead; the key holds ARG.claim, 'P|<fingerprint>|<claim
-- token>', for ARG.inFlightMs, until the request's answer replaces it or the request frees it), IN_PROGRESS
-- (a request with this key is still running), MISMATCH (the key names another request than
-- ARG.fingerprint), or DONE with the stored answer.
local v = redis.call('GET', KEY.key)
if not v then
  redis.call('SET', KEY.key, ARG.claim, 'PX', ARG.inFlightMs)
  return { 'NEW' }
end
local state, fp, rest = string.match(v, '^(%a)|([^|]*)|?(.*)$')
if fp ~= ARG.fingerprint then return { 'MISMATCH' } end
if state == 'P' then return { 'IN_PROGRESS' } end
return { 'DONE', rest }
