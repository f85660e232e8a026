--- `@` completion beyond files: the workspace symbols of the other language servers running in Neovim, and the
--- editor's diagnostics. A symbol completes to `@<file> (<name>, line <n>)` (the server reads the file, the words
--- say which symbol); `@problems` / `@problems:<file>` are turned into the list of problems when the prompt is sent.

local M = {}

local TIMEOUT_MS = 1500
local SEVERITY = { "error", "warning", "info", "hint" }

---@param path string
---@return string
local function rel(path)
  return vim.fn.fnamemodify(path, ":.")
end

---@param path string
---@return string
local function escaped(path)
  return (path:gsub(" ", "\\ "))
end

---Workspace symbols matching `base` (with or without its @) from every other client that offers them.
---@param base string
---@return table[]
function M.symbol_items(base)
  local query = base:gsub("^@", "")
  if #query < 2 then
    return {} -- a symbol list for one letter is the whole workspace
  end
  local out = {}
  for _, client in ipairs(vim.lsp.get_clients()) do
    if client.name ~= require("agent_lsp.client").NAME and client:supports_method("workspace/symbol") then
      local answer = client:request_sync("workspace/symbol", { query = query }, TIMEOUT_MS)
      for _, sym in ipairs(answer and type(answer.result) == "table" and answer.result or {}) do
        local loc = type(sym) == "table" and sym.location or nil
        if type(loc) == "table" and type(loc.uri) == "string" and type(sym.name) == "string" then
          local path = rel(vim.uri_to_fname(loc.uri))
          local line = type(loc.range) == "table" and loc.range.start.line + 1 or 1
          out[#out + 1] = {
            word = ("@%s (%s, line %d)"):format(escaped(path), sym.name, line),
            abbr = sym.name,
            menu = ("symbol %s:%d"):format(path, line),
            icase = 1,
          }
        end
      end
    end
  end
  return out
end

---The diagnostics of files with a name, by workspace-relative file, in file order.
---@return table<string, vim.Diagnostic[]>, string[]
local function by_file()
  local files, order = {}, {}
  for _, d in ipairs(vim.diagnostic.get()) do
    local name = vim.api.nvim_buf_is_valid(d.bufnr) and vim.api.nvim_buf_get_name(d.bufnr) or ""
    if name ~= "" then
      local path = rel(name)
      if files[path] == nil then
        files[path] = {}
        order[#order + 1] = path
      end
      table.insert(files[path], d)
    end
  end
  table.sort(order)
  return files, order
end

---`@problems` (the workspace) and `@problems:<file>` for each file with diagnostics, when `base` starts them.
---@param base string
---@return table[]
function M.problem_items(base)
  local query = base:gsub("^@", ""):lower()
  if not (vim.startswith("problems", query) or vim.startswith(query, "problems")) then
    return {}
  end
  local files, order = by_file()
  if #order == 0 then
    return {}
  end
  local total = 0
  local out = {}
  for _, path in ipairs(order) do
    total = total + #files[path]
    local word = "@problems:" .. escaped(path)
    if vim.startswith(word:lower(), "@" .. query) then
      out[#out + 1] = { word = word, abbr = "problems:" .. path, menu = #files[path] .. " problem(s)", icase = 1 }
    end
  end
  if vim.startswith("problems", query) then
    table.insert(out, 1, { word = "@problems", abbr = "problems", menu = total .. " in the workspace", icase = 1 })
  end
  return out
end

---@param path string
---@param list vim.Diagnostic[]
---@return string[]
local function lines_of(path, list)
  local out = {}
  for _, d in ipairs(list) do
    local source = d.source and (" (" .. d.source .. ")") or ""
    out[#out + 1] = ("- %s:%d:%d: %s: %s%s"):format(
      path,
      d.lnum + 1,
      d.col + 1,
      SEVERITY[d.severity] or "problem",
      d.message,
      source
    )
  end
  return out
end

---`text` with each `@problems` / `@problems:<file>` replaced by words and the problems appended as a list.
---@param text string
---@return string
function M.expand(text)
  local files, order = by_file()
  local blocks = {}
  local expanded = text:gsub("@problems:(%S+)", function(path)
    path = path:gsub("\\ ", " ")
    local block = { ("Problems the editor reports in %s:"):format(path) }
    blocks[#blocks + 1] = vim.list_extend(block, lines_of(path, files[path] or {}))
    if files[path] == nil then
      blocks[#blocks][2] = "- none"
    end
    return ("the problems in %s (listed below)"):format(path)
  end)
  expanded = expanded:gsub("@problems%f[%s%p%z]", function()
    local block = { "Problems the editor reports in the workspace:" }
    for _, path in ipairs(order) do
      vim.list_extend(block, lines_of(path, files[path]))
    end
    if #order == 0 then
      block[2] = "- none"
    end
    blocks[#blocks + 1] = block
    return "the workspace's problems (listed below)"
  end)
  for _, block in ipairs(blocks) do
    expanded = expanded .. "\n\n" .. table.concat(block, "\n")
  end
  return expanded
end

return M
