-- Decides a staff action whose outcome its caller never learnt (Redis failed or timed out under it, or the
-- process died): ARG.actionId, in the event's staff-action ledger KEY.staffLedger (kept ARG.ledgerTtlMs;
-- hold-lifecycle.lua staff_mark). Replies 'APPLIED' when the action's change was made;
-- otherwise marks the action given up, so that its change can never be made afterwards (a command still
-- on its way is refused), and replies 'CANCELLED'. Either answer is final.
local mark = staff_mark()
if mark == 'A' then return 'APPLIED' end
if mark ~= 'X' then
  redis.call('HSET', KEY.staffLedger, ARG.actionId, 'X')
  redis.call('PEXPIRE', KEY.staffLedger, ARG.ledgerTtlMs)
end
return 'CANCELLED'
