-- Sets KEY.first to ARG.first and KEY.second to ARG.second (a minute's expiry) and answers both keys as
-- Redis saw them (so with the client's prefix).
redis.call('SET', KEY.first, ARG.first, 'PX', 60000)
redis.call('SET', KEY.second, ARG.second, 'PX', 60000)
return { KEY.first, KEY.second }
