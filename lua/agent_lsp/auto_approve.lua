--- `:AgentAutoApprove [kind] [scope]`: the session's auto-approve switches (read, edit, shell, mcp, web; off,
--- session, workspace), asked of and enforced by the server (agent/autoApprove). What is on shows in the chat's
--- winbar (`auto: Edit✓ Shell✓✓`, ✓✓ for the workspace); an untrusted folder refuses with the reason.

local M = {}

M.KINDS = { "read", "edit", "shell", "mcp", "web" }
M.SCOPES = { "off", "session", "workspace" }
local LABELS = { read = "Read", edit = "Edit", shell = "Shell", mcp = "MCP", web = "Web" }

---The winbar's part for a session's switches: nil when none is on (or the server has not said).
---@param state table?
---@return string?
function M.text(state)
  if type(state) ~= "table" or type(state.kinds) ~= "table" then
    return nil
  end
  local on = {}
  for _, k in ipairs(state.kinds) do
    if k.scope == "session" or k.scope == "workspace" then
      on[#on + 1] = (LABELS[k.kind] or k.kind) .. (k.scope == "workspace" and "✓✓" or "✓")
    end
  end
  return #on > 0 and ("auto: " .. table.concat(on, " ")) or nil
end

---Ask the server (changing `kind` to `scope` first when given) and keep its answer on the session.
---@param params table? {kind, scope}
---@param done fun(state: table?)?
local function ask(params, done)
  local session = require("agent_lsp.session")
  session.ensure(function(s)
    local client = s and vim.lsp.get_client_by_id(s.client_id)
    if not (s and client) then
      return done and done(nil)
    end
    local client_mod = require("agent_lsp.client")
    local request = vim.tbl_extend("force", { sessionId = s.id }, params or {})
    client_mod.request(client, "agent/autoApprove", request, function(err, result)
      if err then
        client_mod.report("agent/autoApprove", err)
        return done and done(nil)
      end
      s.auto_approve = result
      require("agent_lsp.chat.status").refresh()
      return done and done(result)
    end)
  end)
end

---The current session's switches from the server (after a session opens).
function M.refresh()
  ask(nil)
end

---The scope `kind` has now.
---@param kind string
---@return string
local function scope_of(kind)
  local s = require("agent_lsp.session").current
  for _, k in ipairs(s and s.auto_approve and s.auto_approve.kinds or {}) do
    if k.kind == kind then
      return k.scope
    end
  end
  return "off"
end

---`:AgentAutoApprove [kind] [scope]`; asks with vim.ui.select for what is missing.
---@param args string[]
function M.command(args)
  local kind, scope = args[1], args[2]
  ---@param k string
  ---@param sc string
  local function apply(k, sc)
    ask({ kind = k, scope = sc })
  end
  ---@param k string
  local function with_scope(k)
    if scope then
      return apply(k, scope)
    end
    vim.ui.select(M.SCOPES, {
      prompt = "Auto-approve " .. (LABELS[k] or k),
      format_item = function(sc)
        return sc .. (sc == scope_of(k) and " (current)" or "")
      end,
    }, function(sc)
      if sc then
        apply(k, sc)
      end
    end)
  end
  if kind then
    return with_scope(kind)
  end
  local s = require("agent_lsp.session").current
  local state = s and s.auto_approve
  if state and state.available == false then
    vim.notify("agent-lsp: auto-approve is off: " .. tostring(state.reason), vim.log.levels.WARN)
    return
  end
  vim.ui.select(M.KINDS, {
    prompt = "Auto-approve which kind of tool?",
    format_item = function(k)
      return ("%s (%s)"):format(LABELS[k], scope_of(k))
    end,
  }, function(k)
    if k then
      with_scope(k)
    end
  end)
end

---Command-line completion: kinds, then scopes.
---@param arglead string
---@param line string
---@return string[]
function M.complete(arglead, line)
  local words = vim.split(vim.trim(line), "%s+")
  local list = (#words == 1 or (#words == 2 and arglead ~= "")) and M.KINDS or M.SCOPES
  return vim.tbl_filter(function(x)
    return vim.startswith(x, arglead)
  end, list)
end

return M
