--- Completion in the chat's prompt buffer: slash commands (the server's, custom `.toml` ones included) as the
--- first word, and `@path` mentions of the workspace's files and folders anywhere (the server's agent/findFiles:
--- fuzzy, ignore files respected; the server reads a mentioned file or folder with the prompt), with the
--- session's MCP resources as `@server:uri` (a resource template offers its fixed part; typing on, the server
--- completes the value).
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

local FIND_TIMEOUT_MS = 2000

---Files and folders matching `base` (with or without its @), as complete-items `@path` (spaces escaped), then
---the session's MCP resources as `@server:uri`.
---@param base string
---@return table[]
function M.file_items(base)
  local client = require("agent_lsp.client").ensure()
  if client == nil then
    return {}
  end
  local query = base:gsub("^@", "")
  local s = require("agent_lsp.session").current
  local params = { query = query, limit = 50, sessionId = s and s.id or nil }
  local answer = client:request_sync("agent/findFiles", params, FIND_TIMEOUT_MS)
  local items = answer and answer.result and answer.result.items or {}
  local resources = answer and answer.result and answer.result.resources or {}
  local out = {}
  for _, f in ipairs(items) do
    out[#out + 1] = {
      word = "@" .. f.path:gsub(" ", "\\ "),
      abbr = f.path,
      menu = f.isDirectory and "folder" or "file",
      icase = 1,
    }
  end
  for _, r in ipairs(resources) do
    local template = r.template == true
    out[#out + 1] = {
      word = "@" .. (template and r.prefix or r.mention),
      abbr = r.mention,
      menu = template and "MCP template" or "MCP resource",
      info = type(r.description) == "string" and r.description or r.name,
      icase = 1,
    }
  end
  return out
end

---A 'completefunc'/'omnifunc': completes `/name` when it is the first word of the prompt,
---and `@path` wherever a word starts with @.
---@param findstart integer
---@param base string
---@return integer|table[]
function M.complete(findstart, base)
  local row, col = unpack(vim.api.nvim_win_get_cursor(0))
  local line = vim.api.nvim_get_current_line():sub(1, col)
  local at = line:match("()@[^%s@]*$")
  local mention = at ~= nil and (at == 1 or line:sub(at - 1, at - 1):match("%s") ~= nil)
  if findstart == 1 then
    if mention then
      return at - 1
    end
    if row ~= 1 or not line:match("^/%S*$") then
      return -3 -- neither a command nor a mention: leave completion mode quietly
    end
    return 0
  end
  if base:sub(1, 1) == "@" then
    local more = require("agent_lsp.chat.context_items")
    return vim.list_extend(vim.list_extend(more.problem_items(base), M.file_items(base)), more.symbol_items(base))
  end
  return M.items(base)
end

return M
