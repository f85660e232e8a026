--- agent/diagnostics: what vim.diagnostic holds for the agent's files, waited for after its edit (DiagnosticChanged).

local C = require("agent_lsp.code_intel.encoding")
local E = require("agent_lsp.code_intel.editor")

local D = {}

D.QUIET_MS = 150 -- after new diagnostics, how long to wait for more (a checker reports in steps)
local MAX_WAIT_MS = 30000

-- Per buffer, the b:changedtick when its diagnostics last changed, and when (ms); waiters to wake on a change.
local published = {} ---@type table<integer, { tick: integer, at: number }>
local waiters = {} ---@type table<fun(), boolean>

vim.api.nvim_create_autocmd("DiagnosticChanged", {
  group = vim.api.nvim_create_augroup("agent_lsp.code_intel", { clear = true }),
  callback = function(ev)
    if vim.api.nvim_buf_is_valid(ev.buf) then
      published[ev.buf] = { tick = vim.b[ev.buf].changedtick, at = vim.uv.now() }
    end
    for wake in pairs(waiters) do
      wake()
    end
  end,
})

---Whether `buf`'s diagnostics changed since its text last did.
---@param buf integer
---@return boolean
local function settled(buf)
  local p = published[buf]
  return p ~= nil and vim.api.nvim_buf_is_valid(buf) and p.tick == vim.b[buf].changedtick
end

---The diagnostics Neovim shows for `buf` (every source but agent-lsp), as LSP Diagnostics in UTF-16.
---@param buf integer
---@return table[]
local function lsp_diagnostics(buf)
  local ours = {} ---@type table<integer, boolean>
  for _, c in ipairs(vim.lsp.get_clients({ name = require("agent_lsp.client").NAME })) do
    ours[vim.lsp.diagnostic.get_namespace(c.id, false)] = true
    ours[vim.lsp.diagnostic.get_namespace(c.id, true)] = true
  end
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if not ours[d.namespace] then
      local first = vim.api.nvim_buf_get_lines(buf, d.lnum, d.lnum + 1, false)[1] or ""
      local last_lnum = d.end_lnum or d.lnum
      local last = vim.api.nvim_buf_get_lines(buf, last_lnum, last_lnum + 1, false)[1] or ""
      out[#out + 1] = {
        range = {
          start = { line = d.lnum, character = C.recode(first, "utf-8", "utf-16", d.col) },
          ["end"] = { line = last_lnum, character = C.recode(last, "utf-8", "utf-16", d.end_col or d.col) },
        },
        severity = d.severity,
        message = d.message,
        source = d.source,
        code = d.code,
      }
    end
  end
  return out
end

---agent/diagnostics: each file's diagnostics now (waitMs 0), or once they changed after the buffer's last change
---(the agent's edit), quiet for QUIET_MS, waiting at most waitMs; `settled` says whether that change was seen.
---Files no language server is attached to are not waited for.
---@param params { uris: string[], waitMs: integer? }
---@return { items: table[] }
function D.diagnostics(params)
  if type(params.uris) ~= "table" then
    E.fail("agent/diagnostics needs uris: string[]", vim.lsp.protocol.ErrorCodes.InvalidParams)
  end
  local bufs, awaited = {}, {}
  for i, uri in ipairs(params.uris) do
    local ok, buf = pcall(E.load, uri)
    bufs[i] = ok and buf or nil -- a file that is gone has no diagnostics; the others are still answered
    if ok and #E.servers(buf) > 0 then
      awaited[#awaited + 1] = bufs[i] -- a file no language server serves has nothing to wait for
    end
  end
  local wait = #awaited > 0 and math.min(math.max(tonumber(params.waitMs) or 0, 0), MAX_WAIT_MS) or 0
  local deadline = vim.uv.now() + wait
  while wait > 0 and vim.uv.now() < deadline do
    local until_ms = deadline
    if vim.iter(awaited):all(settled) then
      local last = 0
      for _, buf in ipairs(awaited) do
        last = math.max(last, published[buf].at)
      end
      if vim.uv.now() - last >= D.QUIET_MS then
        break
      end
      until_ms = math.min(deadline, last + D.QUIET_MS)
    end
    local wake ---@type fun()?
    E.await(function(done)
      wake = done
      waiters[done] = true
    end, until_ms - vim.uv.now())
    waiters[wake] = nil
  end
  local items = {}
  for i, uri in ipairs(params.uris) do
    local buf = bufs[i]
    items[i] = { uri = uri, diagnostics = buf and lsp_diagnostics(buf) or {}, settled = buf ~= nil and settled(buf) }
  end
  return { items = items }
end

return D
