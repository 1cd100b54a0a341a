-- Sets every key of KEY.keys to ARG.value (a minute's expiry) and answers how many keys it set.
for _, k in ipairs(KEY.keys) do redis.call('SET', k, ARG.value, 'PX', 60000) end
return #KEY.keys
