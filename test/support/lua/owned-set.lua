-- A store's owner-checked write, as a section's store script does it (the lock library's contract,
-- owned.lua): sets KEY.data to ARG.value only while every key of KEY.lockKeys holds ARG.owner, else
-- answers 'NOT_LOCKED' and writes nothing; with ARG.letGo '1' it is the section's last write and the
-- lock's keys go with it (HeldLock.letGoInScript).
if not lock_owned(KEY.lockKeys, ARG.owner) then return 'NOT_LOCKED' end
redis.call('SET', KEY.data, ARG.value)
if ARG.letGo == '1' then lock_let_go(KEY.lockKeys) end
return 'OK'
