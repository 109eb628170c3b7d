-- lru_helpers.lua: a small LRU-like cache in a file of its own, for
-- library_loop.lua. get(key) looks for the key among the last 8 it was
-- given (a short loop of its own); set(key, value) remembers it and keeps
-- an entry for it, starting a new table of entries when full. It reads
-- the keys it is given and allocates only its own tables (lines 28, 32).
local M = {}
local mt = { __index = M }

function M.new(size)
  return setmetatable({ recent = {}, pos = 0, items = {}, n = 0, size = size }, mt)
end

function M.get(self, key)
  local recent = self.recent
  for j = 1, #recent do
    if recent[j] == key then
      return self.items[key]
    end
  end
  return nil
end

function M.set(self, key, value)
  local pos = self.pos % 8 + 1
  self.pos = pos
  self.recent[pos] = key
  if self.n >= self.size then
    self.items = {}
    self.n = 0
  end
  self.n = self.n + 1
  self.items[key] = { value = value }
end

return M
