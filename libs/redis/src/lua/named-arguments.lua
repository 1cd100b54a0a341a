-- The one reader of a script's KEYS and ARGV: every script of the service reads its keys and arguments by
-- the names its manifest gives them (KEY.<name>, ARG.<name>), never by position, so the manifest is the
-- only place that says which position is which. The TypeScript side builds its lists from the same names
-- (luaCall in lua-script.ts), and the code that calls this reader is generated from the manifest.
--
-- named(list, names, rest, what): a table of name -> list[i] for names[i]; with `rest` (a name), the items
-- after the named ones as one list under that name. A list of another length than the manifest says is
-- refused with an error naming `what`: a caller that sends what the script does not expect fails loudly,
-- before anything is read or written.
local function named(list, names, rest, what)
  local n = #names
  if #list < n or (not rest and #list > n) then
    error(what .. ': ' .. (rest and 'at least ' or '') .. n .. ' expected, got ' .. #list)
  end
  local out = {}
  for i = 1, n do out[names[i]] = list[i] end
  if rest then
    local more = {}
    for i = n + 1, #list do more[#more + 1] = list[i] end
    out[rest] = more
  end
  return out
end
