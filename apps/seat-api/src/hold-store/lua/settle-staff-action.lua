-- Decides a staff action whose outcome its caller never learnt (Redis failed or timed out under it, or the
-- process died): ARGV[4] action id, [5] how long the ledger is kept (ms); KEYS[EVENT_SCRIPT_KEYS + 1] the
-- event's staff-action ledger (force-release.lua). Replies 'APPLIED' when the action's change was made;
-- otherwise marks the action given up, so that its change can never be made afterwards (a command still
-- on its way is refused), and replies 'CANCELLED'. Either answer is final.
local ledger, action = KEYS[EVENT_SCRIPT_KEYS + 1], ARGV[4]
local mark = redis.call('HGET', ledger, action)
if mark == 'A' then return 'APPLIED' end
if mark ~= 'X' then
  redis.call('HSET', ledger, action, 'X')
  redis.call('PEXPIRE', ledger, ARGV[5])
end
return 'CANCELLED'
