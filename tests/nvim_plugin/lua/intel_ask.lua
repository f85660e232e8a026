--- What the code-intelligence specs share: a language server enabled for Python, the plugin's handlers called as
--- Neovim calls them, and locations as "file:line:col".

local H = require("harness")
local intel = require("agent_lsp.code_intel")

local A = {}

---How long each answer took, in order: "operation ms" (diagnostics: "diagnostics/waitMs ms").
A.timings = {} ---@type string[]

---Enable a language server for Python files of the spec's project (vim.lsp.config + vim.lsp.enable).
---@param name string
---@param cmd string[]
function A.enable(name, cmd)
  vim.lsp.config(name, { cmd = cmd, filetypes = { "python" }, root_markers = { "pyproject.toml" } })
  vim.lsp.enable(name)
end

---Call one of the plugin's request handlers as Neovim does (in a coroutine) and wait for its answer.
---@param handler lsp.Handler
---@param params table
---@param ms integer? How long the answer may take (default 60 s)
---@return any result, table? err
function A.call(handler, params, ms)
  local out
  local started = vim.uv.hrtime()
  coroutine.wrap(function()
    out = vim.F.pack_len(handler(nil, params, {}))
  end)()
  H.wait(function()
    return out ~= nil
  end, "the answer to " .. vim.inspect(params), ms or 60000)
  local what = params.operation or ("diagnostics/" .. tostring(params.waitMs))
  A.timings[#A.timings + 1] = ("%s %d ms"):format(what, (vim.uv.hrtime() - started) / 1e6)
  return out[1], out[2]
end

---agent/codeIntel `operation` at a 0-based UTF-16 position of a project file; fails on an error answer.
---@param operation string
---@param file string
---@param line integer
---@param character integer
---@param extra table?
---@return any
function A.ask(operation, file, line, character, extra)
  local params = vim.tbl_extend("force", {
    operation = operation,
    textDocument = { uri = vim.uri_from_fname(H.project .. "/" .. file) },
    position = { line = line, character = character },
  }, extra or {})
  local result, err = A.call(intel.code_intel_handler, params)
  H.ok(err == nil, operation .. " answered without an error: " .. vim.inspect(err))
  return result
end

---"file:line:col" of each location (Location or LocationLink), sorted.
---@param list table[]
---@return string[]
function A.places(list)
  local out = vim.tbl_map(function(l)
    local uri = l.uri or l.targetUri
    local range = l.range or l.targetSelectionRange
    return ("%s:%d:%d"):format(vim.fs.basename(vim.uri_to_fname(uri)), range.start.line, range.start.character)
  end, list)
  table.sort(out)
  return out
end

---The rename's edits as "file:line:col" (documentChanges or changes).
---@param edit table
---@return string[]
function A.edits(edit)
  local out = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    for _, e in ipairs(change.edits) do
      out[#out + 1] = { uri = change.textDocument.uri, range = e.range }
    end
  end
  for uri, list in pairs(edit.changes or {}) do
    for _, e in ipairs(list) do
      out[#out + 1] = { uri = uri, range = e.range }
    end
  end
  return A.places(out)
end

return A
