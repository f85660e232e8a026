--- Answers the agent's agent/codeIntel and agent/diagnostics from the buffer's other language servers.
---
--- The agent's `lsp` tool and the diagnostics after its edits come from the servers the user already runs in
--- Neovim (every client attached to the file's buffer but agent-lsp itself) and from vim.diagnostic. A file the
--- agent asks about is loaded into a hidden buffer, its filetype set so those servers attach. Positions on the wire
--- are UTF-16 (LSP's default); a server that negotiated another encoding gets and gives its own.

local C = require("agent_lsp.code_intel.encoding")
local D = require("agent_lsp.code_intel.diagnostics")
local E = require("agent_lsp.code_intel.editor")

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


---What the plugin advertises as capabilities.experimental.agent.codeIntel.
---@return table
function M.capability()
  return { operations = M.OPERATIONS, diagnostics = true, rename = true }
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
      local err, result = E.request(client, method, p, buf)
      if err then
        errors[#errors + 1] = err.message or vim.inspect(err)
      elseif result ~= nil and result ~= vim.NIL and not (vim.islist(result) and #result == 0) then
        local uri = p.textDocument and p.textDocument.uri or (p.item and p.item.uri) or ""
        results[#results + 1] = C.recode_result(result, uri, client.offset_encoding or "utf-16", "utf-16")
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
    E.fail(table.concat(errors, "; "))
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
      local line = C.lines_of(uri)(at.line)
      local position = { line = at.line, character = C.recode(line, "utf-16", enc, at.character) }
      local p = { textDocument = { uri = uri }, position = position }
      local err, items = E.request(client, "textDocument/prepareCallHierarchy", p, buf)
      if err then
        E.fail(err.message or vim.inspect(err))
      end
      local method = op == "incomingCalls" and "callHierarchy/incomingCalls" or "callHierarchy/outgoingCalls"
      local merged = {}
      for _, item in ipairs(as_list(items)) do
        local call_err, found = E.request(client, method, { item = item }, buf)
        if call_err then
          E.fail(call_err.message or vim.inspect(call_err))
        end
        vim.list_extend(merged, C.recode_result(as_list(found), item.uri, enc, "utf-16"))
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
    E.fail(
      ("unknown operation %s; one of %s"):format(vim.inspect(op), table.concat(M.OPERATIONS, ", ")),
      vim.lsp.protocol.ErrorCodes.InvalidParams
    )
  end
  local uri = params.textDocument and params.textDocument.uri
  if op == "workspaceSymbol" then
    local servers = uri and E.servers(E.load(uri)) or vim.tbl_filter(function(c)
      return c.name ~= require("agent_lsp.client").NAME
    end, vim.lsp.get_clients())
    local found = ask(servers, method, nil, function()
      return { query = params.query or "" }
    end, false)
    return found and vim.iter(found):flatten():totable() or vim.NIL
  end
  if not uri then
    E.fail(op .. " needs textDocument.uri", vim.lsp.protocol.ErrorCodes.InvalidParams)
  end
  local buf = E.load(uri)
  local servers = E.servers(buf)
  if op == "documentSymbol" then
    local found = ask(servers, method, buf, function()
      return { textDocument = { uri = uri } }
    end, true)
    return found and (found[1] or {}) or vim.NIL
  end
  local at = params.position
  if type(at) ~= "table" or type(at.line) ~= "number" or type(at.character) ~= "number" then
    E.fail(op .. " needs a position {line, character}", vim.lsp.protocol.ErrorCodes.InvalidParams)
  end
  if op == "incomingCalls" or op == "outgoingCalls" then
    return calls(op, servers, buf, uri, at)
  end
  if op == "rename" and not params.newName then
    E.fail("rename needs newName", vim.lsp.protocol.ErrorCodes.InvalidParams)
  end
  local line = vim.api.nvim_buf_get_lines(buf, at.line, at.line + 1, false)[1] or ""
  local found = ask(servers, method, buf, function(client)
    local character = C.recode(line, "utf-16", client.offset_encoding or "utf-16", at.character)
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
M.diagnostics_handler = handler(D.diagnostics)

return M
