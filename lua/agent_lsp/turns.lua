--- Turns of the current session: a prompt (agent/prompt) or a code action's command, tracked until it answers;
--- a message sent while one runs steers it (agent/steer, when the server offers it); cancel.

local client_mod = require("agent_lsp.client")
local session = require("agent_lsp.session")
local status = require("agent_lsp.chat.status")
local view = require("agent_lsp.chat.view")

local M = {}

local STOP_NOTICES = {
  cancelled = "Cancelled.",
  max_tokens = "Stopped: the response hit the token limit.",
  max_turn_requests = "Stopped: too many turns.",
  refusal = "The model refused.",
}

---@param s agent_lsp.Session
---@param err lsp.ResponseError?
---@param result table?
local function finish(s, err, result)
  s.request = nil
  local stop = type(result) == "table" and result.stopReason or nil
  require("agent_lsp.permission").dismiss(s.id)
  -- Files the turn changed on disk by other means than an edit (its shell commands, a /rewind): their buffers,
  -- hidden ones included, hold the new text before anything is edited again.
  require("agent_lsp.buffers").refresh_clean()
  if session.current == s then
    local t = view.transcript()
    if err then
      t:notice("Error: " .. (err.message or vim.inspect(err)))
    elseif stop and STOP_NOTICES[stop] then
      t:notice(STOP_NOTICES[stop])
    end
    if not err then
      require("agent_lsp.rewind").learn_ids(s)
    end
    status.refresh()
  end
  session.emit("AgentTurnDone", { sessionId = s.id, stopReason = stop, error = err and err.message or nil })
end

---Run one turn: show the user's message, send `method`, and track the request until it answers.
---@param text string What the chat shows as the user's message
---@param method string agent/prompt or workspace/executeCommand
---@param params fun(s: agent_lsp.Session): table The request's params, for the session
---@param bufnr integer? The buffer the request is about
---@param attached string[]? What goes with the text, named in the chat (images, the editor's selection)
function M.turn(text, method, params, bufnr, attached)
  session.ensure(function(s)
    if not s then
      return
    end
    if s.request then
      vim.notify("agent-lsp: a turn is running; :AgentCancel it first", vim.log.levels.WARN)
      return
    end
    local client = session.client_of(s)
    if not client then
      return
    end
    local t = view.transcript()
    status.mark(s, t:user_count())
    t:add_user(text, attached)
    s.request = client_mod.request(client, method, params(s), function(err, result)
      finish(s, err, result)
    end, bufnr)
    status.refresh()
  end)
end

---Whether the session's server takes agent/steer (it lists it in capabilities.experimental.agent.requests).
---@param s agent_lsp.Session?
---@return boolean
function M.can_steer(s)
  local client = s and session.client_of(s)
  local caps = client and client.server_capabilities or {}
  local agent = type(caps.experimental) == "table" and caps.experimental.agent or nil
  local requests = type(agent) == "table" and agent.requests or nil
  return vim.islist(requests) and vim.tbl_contains(requests, "agent/steer")
end

---@param prompt string|table[]
---@return table[]
local function blocks(prompt)
  return type(prompt) == "string" and { { type = "text", text = prompt } } or prompt --[[@as table[] ]]
end

---Send `text` into the running turn (agent/steer): the server injects it at the turn's next safe point. When the
---turn ended meanwhile (promptRequired), it is sent as a prompt of its own.
---@param s agent_lsp.Session
---@param text string
---@param prompt string|table[]
---@param attached string[]
function M.steer(s, text, prompt, attached)
  local client = session.client_of(s)
  if not client then
    return
  end
  local params = { sessionId = s.id, prompt = blocks(prompt), idleBehavior = "promptRequired" }
  client_mod.request(client, "agent/steer", params, function(err, result)
    if err then
      return client_mod.report("agent/steer", err)
    end
    local outcome = type(result) == "table" and result.outcome or nil
    if outcome == "promptRequired" then
      return M.send(text, prompt, attached)
    end
    local t = view.transcript()
    status.mark(s, t:user_count())
    local meta = type(result) == "table" and type(result._meta) == "table" and result._meta["agent-lsp"] or nil
    local id = type(meta) == "table" and type(meta.messageId) == "string" and meta.messageId or nil
    t:add_steered(text, attached, id) -- the id names it to a later rewind or fork
    session.emit("AgentSteer", { sessionId = s.id, outcome = outcome })
  end)
end

---@param text string
---@param prompt string|table[]
---@param attached string[]
---@param context table?
function M.send(text, prompt, attached, context)
  M.turn(text, "agent/prompt", function(s)
    return { sessionId = s.id, prompt = prompt, context = context }
  end, nil, attached)
end

---Send a prompt in the current session (created when needed); while a turn runs, steer it instead when the
---server can, else say that a turn is running.
---@param text string
---@param context table? Editor context: {uri, range?, selectedText?, diagnostics?}
function M.prompt(text, context)
  local images = require("agent_lsp.chat.images")
  local refused = images.refused(session.current)
  if refused then -- before anything is sent; the images stay for another model
    vim.notify(refused, vim.log.levels.ERROR)
    return
  end
  local attached = images.names()
  if type(context) == "table" and type(context.uri) == "string" then
    local where = vim.fn.fnamemodify(vim.uri_to_fname(context.uri), ":.")
    local range = type(context.range) == "table" and context.range or nil
    attached[#attached + 1] = range
        and ("%s lines %d-%d"):format(where, range.start.line + 1, range["end"].line + 1)
      or where
  end
  local prompt = images.prompt(require("agent_lsp.chat.context_items").expand(text))
  local s = session.current
  if s and s.request and M.can_steer(s) then
    return M.steer(s, text, prompt, attached)
  end
  M.send(text, prompt, attached, context)
end

---Cancel the running turn, if any.
function M.cancel()
  local s = session.current
  local client = s and session.client_of(s)
  if not (s and client and s.request) then
    vim.notify("agent-lsp: nothing is running", vim.log.levels.INFO)
    return
  end
  client:notify("agent/cancel", { sessionId = s.id })
end

return M
