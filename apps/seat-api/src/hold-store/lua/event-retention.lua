-- An event's end, by Redis time: the one clock every instance shares, whatever its own says. The shard's
-- events index keeps each event's retain-until (start + HOLD_EVENT_RETENTION_SECONDS); when the shard's
-- sweep deletes an event's keys it leaves the event in the shard's ended index (a tombstone, kept
-- EVENT_TOMBSTONE_KEEP_MS; hold-keys.ts). Both keys carry the shard's tag: the slot of the call's keys.

-- True once the event's keys were deleted: nothing may write them again. A write would re-create keys
-- nothing deletes any more, and a seat PostgreSQL has booked would read free in them.
local function event_removed()
  return redis.call('ZSCORE', SHARD_BASE .. 'ended', EVENT_ID) ~= false
end

-- True once the event takes no new hold: its keys deleted, or its retain-until passed (the sweep deletes
-- them once nothing of it is live or kept). A sweep that finds the event past its retain-until with holds
-- still kept looks at it again later, moving its entry in the events index ahead: it marks the event's
-- meta `over` first, so the event stays over whatever its entry says.
local function event_ended()
  if event_removed() then return true end
  local retainUntil = redis.call('ZSCORE', SHARD_BASE .. 'events', EVENT_ID)
  if retainUntil ~= false and tonumber(retainUntil) <= NOW then return true end
  return redis.call('HEXISTS', K_META, 'over') == 1
end
