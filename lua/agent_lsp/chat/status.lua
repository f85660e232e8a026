--- The chat's winbar: the session's title, mode, auto-approve switches, whether a turn runs, and its usage and
--- cost (from `usage_update`); the title and usage as they were before each user message, so a rewind, its undo
--- and a fork show what the conversation they leave holds.

local config = require("agent_lsp.config")
local view = require("agent_lsp.chat.view")

local M = {}

M.TITLE_WIDTH = 32

---@class agent_lsp.Usage
---@field used integer Tokens in the context window
---@field size integer The window's size
---@field cost { amount: number, currency: string }? The chat's estimated cost so far

---@param n integer
---@return string
local function grouped(n)
  local s = tostring(math.floor(n))
  local out = s:reverse():gsub("(%d%d%d)", "%1,"):reverse()
  return (out:gsub("^,", ""))
end

---@param cost { amount: number, currency: string }
---@return string
local function cost_text(cost)
  local amount = ("%." .. (cost.amount < 1 and 4 or 2) .. "f"):format(cost.amount)
  return cost.currency == "USD" and ("$" .. amount) or (amount .. " " .. cost.currency)
end

---The usage line: tokens in context, how much of the window is left, the chat's estimated cost if known.
---@param usage agent_lsp.Usage?
---@return string? nil when nothing is known yet
function M.usage_text(usage)
  if type(usage) ~= "table" or type(usage.used) ~= "number" or type(usage.size) ~= "number" or usage.size <= 0 then
    return nil
  end
  local left = math.max(0, 100 - math.floor(usage.used / usage.size * 100 + 0.5))
  local text = ("%s tokens (%d%% left)"):format(grouped(usage.used), left)
  if type(usage.cost) == "table" and type(usage.cost.amount) == "number" then
    text = text .. " · ≈ " .. cost_text(usage.cost)
  end
  return text
end

---Redraw the winbar from the current session.
function M.refresh()
  local s = require("agent_lsp.session").current
  if not s then
    view.set_status("no session")
    return
  end
  local title = s.title or "new session"
  if vim.fn.strchars(title) > M.TITLE_WIDTH then -- the rest of the winbar says more than a long title's end
    title = vim.fn.strcharpart(title, 0, M.TITLE_WIDTH - 1) .. "…"
  end
  local parts = { title }
  local mode = s.modes.currentModeId
  if mode then
    for _, m in ipairs(s.modes.availableModes or {}) do
      if m.id == mode then
        mode = m.name or mode -- the server's own name for it
        break
      end
    end
    parts[#parts + 1] = "mode: " .. mode
  end
  parts[#parts + 1] = require("agent_lsp.auto_approve").text(s.auto_approve)
  parts[#parts + 1] = M.usage_text(s.usage)
  parts[#parts + 1] = s.request and "working… (" .. config.options.keymaps.cancel .. " cancels)" or "ready"
  view.set_status(table.concat(parts, " · "))
end

---Remember the title and usage as they are before user message `n` (0 first) of session `s` is sent.
---@param s agent_lsp.Session
---@param n integer
function M.mark(s, n)
  s.marks = s.marks or {}
  s.marks[n] = { title = s.title, usage = s.usage }
end

---Session `s` went back to before user message `n`: its title and usage are those it had then. Returns the marks
---dropped (from `n` on), for `put_back`.
---@param s agent_lsp.Session
---@param n integer
---@return table
function M.back_to(s, n)
  local marks = s.marks or {}
  local at = marks[n] or {}
  local dropped = { title = s.title, usage = s.usage, marks = {} }
  for i, mark in pairs(marks) do
    if i >= n then
      dropped.marks[i], marks[i] = mark, nil
    end
  end
  s.title, s.usage = at.title, at.usage
  M.refresh()
  return dropped
end

---Undo of `back_to`: the title, usage and marks it dropped.
---@param s agent_lsp.Session
---@param dropped table?
function M.put_back(s, dropped)
  if not dropped then
    return
  end
  s.marks = s.marks or {}
  for i, mark in pairs(dropped.marks or {}) do
    s.marks[i] = mark
  end
  s.title, s.usage = dropped.title, dropped.usage
  M.refresh()
end

---A fork from user message `n` of `source`: the fork starts with the title and usage the source had before it.
---@param fork agent_lsp.Session
---@param source agent_lsp.Session?
---@param n integer?
function M.inherit(fork, source, n)
  if not source then
    return
  end
  local at = n and (source.marks or {})[n] or { title = source.title, usage = source.usage }
  fork.title = fork.title or at.title
  fork.usage = fork.usage or at.usage
  fork.marks = {}
  for i, mark in pairs(source.marks or {}) do
    if n == nil or i < n then
      fork.marks[i] = mark
    end
  end
  M.refresh()
end

return M
