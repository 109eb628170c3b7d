-- bench/holders_heap.lua: a heap of about 200 MB and 1.9 million objects that grows across the
-- run (bench/holders-heap.sh): records (tables with a hash part) in a global index by id, each
-- with a unique name string, an array of tags, a closure over the record and its upvalue, and
-- a session list (an array part) and a cache by name (a hash part) that hold some of them too;
-- each round adds RECORDS / ROUNDS of them and collects, so that every line that makes them
-- grows, and the snapshot at the return holds them all for the holder analysis.
-- usage: ljleak run holders_heap.lua [RECORDS [ROUNDS]]
local records = tonumber(arg and arg[1]) or 330000
local rounds = tonumber(arg and arg[2]) or 20
local per = math.ceil(records / rounds)
users = {}
sessions = {}
local cache = {}
local made = 0
local function handler(record)
  return function(event) return record.id + #event end
end
for round = 1, rounds do
  for i = made + 1, math.min(records, made + per) do
    local record = { id = i, round = round, score = i * 0.5 }
    record.name = "user-" .. i .. "-" .. round
    record.tags = { i, i + 1, i + 2, round }
    record.on_event = handler(record)
    users[i] = record
    if i % 3 == 0 then
      sessions[#sessions + 1] = { user = record, started = i, note = "session " .. i }
    end
    if i % 5 == 0 then
      cache[record.name] = record
    end
  end
  made = math.min(records, made + per)
  collectgarbage()
end
