-- testdata/busted/spec/accounts_spec.lua: the suite that ljleak busted's
-- tests run (tests/e2e/busted.sh): two leaking tests among steady ones.
-- What leaks: "remembers every login" (the module's cache of logins) and
-- "keeps an audit trail" (the global AUDIT_TRAIL). What does not: the
-- others, "builds the country table" included (a cache warmed once),
-- "fails on its own" (an assertion fails; nothing kept), and the pending
-- test (never run).
package.path = "src/?.lua;" .. package.path
local accounts = require "accounts"

local serial = 0
local function next_token(user)
  serial = serial + 1
  return user .. "-" .. serial
end

describe("accounts", function()
  local scratch

  before_each(function()
    scratch = { started = true }
  end)

  after_each(function()
    scratch = nil
  end)

  describe("login", function()
    it("remembers every login", function()
      for _ = 1, 300 do
        local token = next_token("alice")
        accounts.login("alice", token)
      end
      assert.is_true(scratch.started)
    end)

    it("parses a token", function()
      for _ = 1, 300 do
        local t = accounts.parse(next_token("bob"))
        assert.are.equal("bob", t.user)
      end
    end)

    describe("countries", function()
      it("builds the country table", function()
        local list = accounts.countries()
        assert.are.equal(400, #list)
      end)

      it("formats a country name", function()
        local names = {}
        for i, c in ipairs(accounts.countries()) do
          names[i] = c.code .. ":" .. c.name
        end
        assert.are.equal("C001:country 1", names[1])
      end)
    end)
  end)

  describe("audit", function()
    it("keeps an audit trail", function()
      AUDIT_TRAIL = AUDIT_TRAIL or {}
      for i = 1, 300 do
        AUDIT_TRAIL[#AUDIT_TRAIL + 1] = "event " .. next_token("audit") .. " " .. i
      end
    end)

    it("fails on its own", function()
      local counts = { 1, 2, 3 }
      assert.are.equal(4, #counts)
    end)

    pending("rotates the audit trail")

    it("counts events without keeping them", function()
      local n = 0
      for i = 1, 300 do
        local event = { id = i, text = "event " .. i }
        n = n + #event.text
      end
      assert.is_true(n > 0)
    end)
  end)
end)

describe("tokens", function()
  it("concatenates parts", function()
    local parts = {}
    for i = 1, 200 do parts[i] = tostring(i) end
    assert.is_true(#table.concat(parts, ",") > 0)
  end)

  it("sorts a list", function()
    local list = {}
    for i = 1, 200 do list[i] = (i * 7919) % 200 end
    table.sort(list)
    assert.are.equal(0, list[1])
  end)
end)
