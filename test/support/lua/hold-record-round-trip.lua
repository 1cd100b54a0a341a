-- Saves the fields of ARG.fieldsJson over hold ARG.hid with save() (hold-records.lua), then answers what
-- load() reads back, and how many fields the stored record has.
local h = load(ARG.hid)
local f = cjson.decode(ARG.fieldsJson)
for k, v in pairs(f) do h[k] = v end
save(h)
local r = load(ARG.hid)
return cjson.encode({ r.user, r.status, r.seats, r.created, r.expire, r.max, r.ext, r.fence, r.order,
  r.ended, r.deadline, #cmsgpack.unpack(redis.call('HGET', holds_key(ARG.hid), ARG.hid)) })
