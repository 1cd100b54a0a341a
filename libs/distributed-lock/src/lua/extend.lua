-- Renews the lease of every key of KEY.lockKeys to ARG.leaseMs, only if every key is still ARG.owner's
-- (never half-extends). Reply 1 extended, 0 not held.
for _, k in ipairs(KEY.lockKeys) do
  if redis.call('GET', k) ~= ARG.owner then return 0 end
end
for _, k in ipairs(KEY.lockKeys) do redis.call('PEXPIRE', k, ARG.leaseMs) end
return 1
