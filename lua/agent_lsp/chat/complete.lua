--- Slash-command completion in the chat's prompt buffer: the server's commands, custom `.toml` ones included.
---
--- Set as the prompt buffer's 'omnifunc' and 'completefunc' (<C-x><C-o> / <C-x><C-u>), so completion plugins
--- that read omnifunc offer the same list.

local M = {}

---The commands whose name starts with `base` (without its slash), as complete-items.
---@param base string
---@return table[]
function M.items(base)
  local s = require("agent_lsp.session").current
  local prefix = base:gsub("^/", "")
  local out = {}
  for _, c in ipairs(s and s.commands or {}) do
    if type(c.name) == "string" and vim.startswith(c.name, prefix) then
      local hint = type(c.input) == "table" and c.input.hint or nil
      out[#out + 1] = {
        word = "/" .. c.name,
        abbr = "/" .. c.name .. (hint and (" " .. hint) or ""),
        menu = c.description or "",
        info = c.description or "",
        icase = 0,
      }
    end
  end
  return out
end

---A 'completefunc'/'omnifunc': completes `/name` when it is the first word of the prompt.
---@param findstart integer
---@param base string
---@return integer|table[]
function M.complete(findstart, base)
  local row, col = unpack(vim.api.nvim_win_get_cursor(0))
  local line = vim.api.nvim_get_current_line():sub(1, col)
  if findstart == 1 then
    if row ~= 1 or not line:match("^/%S*$") then
      return -3 -- not a command: leave completion mode quietly
    end
    return 0
  end
  return M.items(base)
end

return M
