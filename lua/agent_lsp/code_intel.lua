--- Answers the agent's agent/codeIntel and agent/diagnostics from the buffer's other language servers.
---
--- The agent's `lsp` tool and the diagnostics after its edits come from the servers the user already runs in
--- Neovim (every client attached to the file's buffer but agent-lsp itself) and from vim.diagnostic. A file the
--- agent asks about is loaded into a hidden buffer, its filetype set so those servers attach. Positions on the wire
--- are UTF-16 (LSP's default); a server that negotiated another encoding gets and gives its own.

local M = {}

M.OPERATIONS = {
  "goToDefinition",
  "findReferences",
  "hover",
  "documentSymbol",
  "workspaceSymbol",
  "goToImplementation",
  "incomingCalls",
  "outgoingCalls",
  "rename",
}

local METHOD = {
  goToDefinition = "textDocument/definition",
  findReferences = "textDocument/references",
  hover = "textDocument/hover",
  documentSymbol = "textDocument/documentSymbol",
  workspaceSymbol = "workspace/symbol",
  goToImplementation = "textDocument/implementation",
  incomingCalls = "textDocument/prepareCallHierarchy",
  outgoingCalls = "textDocument/prepareCallHierarchy",
  rename = "textDocument/rename",
}

M.REQUEST_TIMEOUT_MS = 15000 -- a server that never answers
M.ATTACH_TIMEOUT_MS = 15000 -- a server starting for a file just loaded
M.QUIET_MS = 150 -- after new diagnostics, how long to wait for more (a checker reports in steps)
local MAX_WAIT_MS = 30000

---What the plugin advertises as capabilities.experimental.agent.codeIntel.
---@return table
function M.capability()
  return { operations = M.OPERATIONS, diagnostics = true, rename = true }
end

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

---Run `start(done)` and wait for `done(...)` without blocking the editor (the caller runs in a coroutine, as
---Neovim's handlers for server requests do); returns what `done` got, or nothing after `ms`.
---@param start fun(done: fun(...))
---@param ms integer?
---@return ...
local function await(start, ms)
  local co = assert(coroutine.running(), "code_intel runs inside a coroutine")
  local finished = false
  local timer ---@type uv.uv_timer_t?
  local function done(...)
    if finished then
      return
    end
    finished = true
    if timer and not timer:is_closing() then -- vim.defer_fn closes its timer when it fires
      timer:stop()
      timer:close()
    end
    local results = vim.F.pack_len(...)
    vim.schedule(function()
      coroutine.resume(co, vim.F.unpack_len(results))
    end)
  end
  if ms then
    timer = vim.defer_fn(done, math.max(ms, 0))
  end
  start(done)
  return coroutine.yield()
end

---@param ms integer
local function sleep(ms)
  await(function() end, ms)
end

---An error the agent's model reads.
---@param message string
---@param code integer?
local function fail(message, code)
  local codes = vim.lsp.protocol.ErrorCodes
  error({ agent_lsp_error = vim.lsp.rpc.rpc_response_error(code or codes.RequestFailed, message) })
end

---The buffer of a file, loaded (hidden) with its filetype set so the servers configured for it attach.
---@param uri string
---@return integer
function M.load(uri)
  local ok, name = pcall(vim.uri_to_fname, uri)
  if not ok then
    fail("not a file URI: " .. tostring(uri), vim.lsp.protocol.ErrorCodes.InvalidParams)
  end
  local buf = vim.fn.bufadd(name)
  if not vim.api.nvim_buf_is_loaded(buf) then
    if not vim.uv.fs_stat(name) then
      fail("no such file: " .. name)
    end
    vim.fn.bufload(buf)
  end
  if vim.bo[buf].filetype == "" then
    local filetype = vim.filetype.match({ buf = buf })
    if filetype then
      vim.bo[buf].filetype = filetype -- FileType: vim.lsp.enable / lspconfig attach their servers
    end
  end
  return buf
end

---The language servers attached to `buf` other than agent-lsp, once they are initialized.
---@param buf integer
---@return vim.lsp.Client[]
function M.servers(buf)
  local function attached()
    return vim.tbl_filter(function(c)
      return c.name ~= require("agent_lsp.client").NAME and not c:is_stopped()
    end, vim.lsp.get_clients({ bufnr = buf, _uninitialized = true })) -- starting ones too (0.11 lists them so)
  end
  local deadline = vim.uv.now() + M.ATTACH_TIMEOUT_MS
  while vim.uv.now() < deadline do
    local ready = true
    for _, c in ipairs(attached()) do
      ready = ready and c.initialized == true
    end
    if ready then
      break
    end
    sleep(50)
  end
  return vim.tbl_filter(function(c)
    return c.initialized == true
  end, attached())
end

-- Position encodings: the wire's UTF-16 to and from a server's own.

---@param line string
---@param from string
---@param to string
---@param col integer
---@return integer
local function recode(line, from, to, col)
  if from == to then
    return col
  end
  local byte = from == "utf-8" and col or vim.str_byteindex(line, from, col, false)
  return to == "utf-8" and math.min(byte, #line) or vim.str_utfindex(line, to, byte, false)
end

---A function giving line `n` (0-based) of a file: its buffer's when loaded, else the file's on disk.
---@param uri string
---@return fun(n: integer): string
local function lines_of(uri)
  local cache ---@type string[]?
  return function(n)
    local buf = vim.uri_to_bufnr(uri)
    if vim.api.nvim_buf_is_loaded(buf) then
      return vim.api.nvim_buf_get_lines(buf, n, n + 1, false)[1] or ""
    end
    if not cache then
      local ok, read = pcall(vim.fn.readfile, vim.uri_to_fname(uri))
      cache = ok and read or {}
    end
    return cache[n + 1] or ""
  end
end

---Convert every range and position in `value` (an LSP result) from `from` to `to`, in place.
---@param value any
---@param uri string The document the positions without a uri of their own are in
---@param from string
---@param to string
---@param line_cache table<string, fun(n: integer): string>?
---@return any
local function recode_result(value, uri, from, to, line_cache)
  if from == to or type(value) ~= "table" then
    return value
  end
  line_cache = line_cache or {}
  ---@param p { line: integer, character: integer }
  ---@param in_uri string
  local function pos(p, in_uri)
    line_cache[in_uri] = line_cache[in_uri] or lines_of(in_uri)
    p.character = recode(line_cache[in_uri](p.line), from, to, p.character)
  end
  ---@param t any
  ---@param in_uri string
  local function walk(t, in_uri)
    if type(t) ~= "table" then
      return
    end
    if type(t.line) == "number" and type(t.character) == "number" then
      return pos(t, in_uri)
    end
    -- The document this table's positions are in: its own, an incoming call's caller's, else the enclosing one.
    local here = t.uri or t.targetUri or (t.textDocument and t.textDocument.uri) or in_uri
    if type(t.from) == "table" and t.from.uri then
      here = t.from.uri
    end
    for k, v in pairs(t) do
      if k == "originSelectionRange" then
        walk(v, uri)
      elseif k == "changes" and type(v) == "table" then
        for file, edits in pairs(v) do
          walk(edits, file)
        end
      else
        walk(v, here)
      end
    end
  end
  walk(value, uri)
  return value
end

---Send `method` to `client` and wait for its answer; returns err, result.
---@param client vim.lsp.Client
---@param method string
---@param params table
---@param buf integer?
---@return lsp.ResponseError?, any
local function request(client, method, params, buf)
  local err, result = await(function(done)
    local ok = client:request(method, params, function(e, r)
      done(e, r)
    end, buf)
    if not ok then
      done({ message = client.name .. " is not running" })
    end
  end, M.REQUEST_TIMEOUT_MS)
  if err == nil and result == nil then
    return nil, nil
  end
  return err, result
end

---@param value any
---@return table[]
local function as_list(value)
  if value == nil or value == vim.NIL then
    return {}
  end
  return vim.islist(value) and value or { value }
end

---Hover contents (MarkupContent, MarkedString or a list of them) as markdown.
---@param contents any
---@return string
local function markdown(contents)
  local parts = {}
  for _, c in ipairs(as_list(contents)) do
    if type(c) == "string" then
      parts[#parts + 1] = c
    elseif c.language then
      parts[#parts + 1] = ("```%s\n%s\n```"):format(c.language, c.value)
    elseif c.value then
      parts[#parts + 1] = c.value
    end
  end
  return table.concat(parts, "\n\n")
end

---Ask each server able to answer; `each(client, params)` gives (err, result), results go to `merge`.
---@param servers vim.lsp.Client[]
---@param method string
---@param buf integer?
---@param params fun(client: vim.lsp.Client): table
---@param first boolean Stop at the first server with a non-empty answer
---@return table[]? results (recoded to UTF-16), nil when no server supports `method`
local function ask(servers, method, buf, params, first)
  local results, errors, asked = {}, {}, false
  for _, client in ipairs(servers) do
    if client:supports_method(method, buf) then
      asked = true
      local p = params(client)
      local err, result = request(client, method, p, buf)
      if err then
        errors[#errors + 1] = err.message or vim.inspect(err)
      elseif result ~= nil and result ~= vim.NIL and not (vim.islist(result) and #result == 0) then
        local uri = p.textDocument and p.textDocument.uri or (p.item and p.item.uri) or ""
        results[#results + 1] = recode_result(result, uri, client.offset_encoding or "utf-16", "utf-16")
        if first then
          break
        end
      end
    end
  end
  if not asked then
    return nil
  end
  if #results == 0 and #errors > 0 then
    fail(table.concat(errors, "; "))
  end
  return results
end

---Locations from several servers as one list: LocationLink[] when all are links and links are wanted.
---@param results table[]
---@param links boolean
---@return table
local function locations(results, links)
  local all, seen = {}, {}
  for _, result in ipairs(results) do
    for _, l in ipairs(as_list(result)) do
      local key = vim.inspect({ l.uri or l.targetUri, l.range or l.targetSelectionRange })
      if not seen[key] then
        seen[key] = true
        all[#all + 1] = l
      end
    end
  end
  local all_links = #all > 0 and vim.iter(all):all(function(l)
    return l.targetUri ~= nil
  end)
  if links and all_links then
    return all
  end
  return vim.tbl_map(function(l)
    return l.targetUri and { uri = l.targetUri, range = l.targetSelectionRange or l.targetRange } or l
  end, all)
end

---@param op string
---@param servers vim.lsp.Client[]
---@param buf integer
---@param uri string
---@param at { line: integer, character: integer }
---@return any
local function calls(op, servers, buf, uri, at)
  for _, client in ipairs(servers) do
    if client:supports_method("textDocument/prepareCallHierarchy", buf) then
      local enc = client.offset_encoding or "utf-16"
      local line = lines_of(uri)(at.line)
      local position = { line = at.line, character = recode(line, "utf-16", enc, at.character) }
      local p = { textDocument = { uri = uri }, position = position }
      local err, items = request(client, "textDocument/prepareCallHierarchy", p, buf)
      if err then
        fail(err.message or vim.inspect(err))
      end
      local method = op == "incomingCalls" and "callHierarchy/incomingCalls" or "callHierarchy/outgoingCalls"
      local merged = {}
      for _, item in ipairs(as_list(items)) do
        local call_err, found = request(client, method, { item = item }, buf)
        if call_err then
          fail(call_err.message or vim.inspect(call_err))
        end
        vim.list_extend(merged, recode_result(as_list(found), item.uri, enc, "utf-16"))
      end
      return merged
    end
  end
  return vim.NIL
end

---agent/codeIntel: the plain LSP result of the operation, vim.NIL when no server of the file can answer.
---@param params table
---@return any
function M.answer(params)
  local op = params.operation
  local method = METHOD[op]
  if not method then
    fail(
      ("unknown operation %s; one of %s"):format(vim.inspect(op), table.concat(M.OPERATIONS, ", ")),
      vim.lsp.protocol.ErrorCodes.InvalidParams
    )
  end
  local uri = params.textDocument and params.textDocument.uri
  if op == "workspaceSymbol" then
    local servers = uri and M.servers(M.load(uri)) or vim.tbl_filter(function(c)
      return c.name ~= require("agent_lsp.client").NAME
    end, vim.lsp.get_clients())
    local found = ask(servers, method, nil, function()
      return { query = params.query or "" }
    end, false)
    return found and vim.iter(found):flatten():totable() or vim.NIL
  end
  if not uri then
    fail(op .. " needs textDocument.uri", vim.lsp.protocol.ErrorCodes.InvalidParams)
  end
  local buf = M.load(uri)
  local servers = M.servers(buf)
  if op == "documentSymbol" then
    local found = ask(servers, method, buf, function()
      return { textDocument = { uri = uri } }
    end, true)
    return found and (found[1] or {}) or vim.NIL
  end
  local at = params.position
  if type(at) ~= "table" or type(at.line) ~= "number" or type(at.character) ~= "number" then
    fail(op .. " needs a position {line, character}", vim.lsp.protocol.ErrorCodes.InvalidParams)
  end
  if op == "incomingCalls" or op == "outgoingCalls" then
    return calls(op, servers, buf, uri, at)
  end
  if op == "rename" and not params.newName then
    fail("rename needs newName", vim.lsp.protocol.ErrorCodes.InvalidParams)
  end
  local line = vim.api.nvim_buf_get_lines(buf, at.line, at.line + 1, false)[1] or ""
  local found = ask(servers, method, buf, function(client)
    local character = recode(line, "utf-16", client.offset_encoding or "utf-16", at.character)
    local p = { textDocument = { uri = uri }, position = { line = at.line, character = character } }
    if op == "findReferences" then
      p.context = { includeDeclaration = true }
    elseif op == "rename" then
      p.newName = params.newName
    end
    return p
  end, op == "hover" or op == "rename")
  if found == nil then
    return vim.NIL
  elseif op == "hover" then
    local text = markdown(found[1] and found[1].contents)
    return text ~= "" and { contents = { kind = "markdown", value = text }, range = found[1].range } or vim.NIL
  elseif op == "rename" then
    return found[1] or vim.NIL
  end
  return locations(found, op == "goToDefinition")
end

-- Diagnostics

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
          start = { line = d.lnum, character = recode(first, "utf-8", "utf-16", d.col) },
          ["end"] = { line = last_lnum, character = recode(last, "utf-8", "utf-16", d.end_col or d.col) },
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
function M.diagnostics(params)
  if type(params.uris) ~= "table" then
    fail("agent/diagnostics needs uris: string[]", vim.lsp.protocol.ErrorCodes.InvalidParams)
  end
  local bufs, awaited = {}, {}
  for i, uri in ipairs(params.uris) do
    bufs[i] = M.load(uri)
    if #M.servers(bufs[i]) > 0 then
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
      if vim.uv.now() - last >= M.QUIET_MS then
        break
      end
      until_ms = math.min(deadline, last + M.QUIET_MS)
    end
    local wake ---@type fun()?
    await(function(done)
      wake = done
      waiters[done] = true
    end, until_ms - vim.uv.now())
    waiters[wake] = nil
  end
  local items = {}
  for i, uri in ipairs(params.uris) do
    items[i] = { uri = uri, diagnostics = lsp_diagnostics(bufs[i]), settled = settled(bufs[i]) }
  end
  return { items = items }
end

---Run `fn(params)` as a handler for a server request: its result, or the error the model reads.
---@param fn fun(params: table): any
---@return lsp.Handler
local function handler(fn)
  return function(_, params)
    local ok, result = pcall(fn, params or {})
    if ok then
      return result == nil and vim.NIL or result
    end
    if type(result) == "table" and result.agent_lsp_error then
      return nil, result.agent_lsp_error
    end
    return nil, vim.lsp.rpc.rpc_response_error(vim.lsp.protocol.ErrorCodes.InternalError, tostring(result))
  end
end

M.code_intel_handler = handler(M.answer)
M.diagnostics_handler = handler(M.diagnostics)

return M
