-- The per-user index (the seat cap), packed: one users-hash field per bucket of users, the first
-- USER_BUCKET_HEX_DIGITS hex digits of the userId's SHA-1, whose value lists the bucket's users with live
-- holds as "\n<userId>=<hid>,<hid>..." entries (a userId holds neither '\n' nor '=': HoldStore refuses
-- such ids). Entries carry the full userId, so users whose digests collide share the field but never each
-- other's holds. Plain string search and splice: no table per call.
local USER_FIELDS
-- The bucket's field, its value ('' when empty), where the user's entry starts and ends (nil if absent)
-- and the user's "hid,hid..." ('' for none).
local function user_entry(user)
  local field = USER_FIELDS[user]
  if not field then
    field = string.sub(redis.sha1hex(user), 1, USER_BUCKET_HEX_DIGITS)
    USER_FIELDS[user] = field
  end
  local all = BATCH and B_USERS[field] -- '' (an emptied field) is a value: Lua's '' is true
  if not all then all = redis.call('HGET', K_USERS, field) or '' end
  local key = '\n' .. user .. '='
  local from = string.find(all, key, 1, true)
  if not from then return field, all, nil, nil, '' end
  local after = string.find(all, '\n', from + 1, true) or #all + 1
  return field, all, from, after, string.sub(all, from + #key, after - 1)
end

-- The user's live holds as "hid,hid..." ('' for none).
local function user_holds(user)
  local _, _, _, _, list = user_entry(user)
  return list
end

-- Sets the user's live holds to change(current list) ('' drops the user's entry).
local function update_user_holds(user, change)
  local field, all, from, after, list = user_entry(user)
  list = change(list)
  local entry = list == '' and '' or ('\n' .. user .. '=' .. list)
  if from then all = string.sub(all, 1, from - 1) .. entry .. string.sub(all, after) else all = all .. entry end
  if BATCH then
    B_USERS[field] = all
  elseif all == '' then
    redis.call('HDEL', K_USERS, field)
  else
    redis.call('HSET', K_USERS, field, all)
  end
end

local function drop_user_hold(user, hid)
  update_user_holds(user, function(list)
    local kept = {}
    for h in string.gmatch(list, '[^,]+') do
      if h ~= hid then kept[#kept + 1] = h end
    end
    return table.concat(kept, ',')
  end)
end

