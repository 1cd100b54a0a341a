-- Renews the lease of every key, only if every key is still ours (never half-extends).
-- KEYS = lock keys, ARGV[1] = owner token, ARGV[2] = new lease ms. Reply 1 extended, 0 not held.
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) ~= ARGV[1] then return 0 end
end
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
return 1
