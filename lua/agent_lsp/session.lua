--- Agent sessions over the agent/* requests: create, prompt, cancel, list, load, switch mode or model.

local client_mod = require("agent_lsp.client")
local config = require("agent_lsp.config")
local view = require("agent_lsp.chat.view")

local M = {}

---@class agent_lsp.Mode
---@field id string
---@field name string
---@field description string?

---@class agent_lsp.Model
---@field modelId string
---@field name string

---@class agent_lsp.Command
---@field name string
---@field description string?
---@field input { hint: string }?

---What the server says a session offers (the agent/newSession and agent/loadSession answer): the plugin keeps no
---list of its own of modes, models or slash commands.
---@class agent_lsp.Described
---@field modes { currentModeId: string?, availableModes: agent_lsp.Mode[] }
---@field models { currentModelId: string?, availableModels: agent_lsp.Model[] }
---@field commands agent_lsp.Command[]

---@class agent_lsp.Session: agent_lsp.Described
---@field id string
---@field client_id integer
---@field cwd string
---@field title string?
---@field request integer? The running turn's request id
---@field usage { used: integer, size: integer }?
---@field auto_approve table? The server's agent/autoApprove answer: {available, reason?, kinds = {{kind, scope}}}
---@field image_input boolean? Whether the model reads images (the server's promptCapabilities.image); nil: unknown

---@type agent_lsp.Session?
M.current = nil

---The latest description any session got from the server: a session the server started for us (a code action)
---and command-line completion before a session exists start from it.
---@type agent_lsp.Described?
M.described = nil

---@type (fun(session: agent_lsp.Session?))[]? Callbacks waiting for a session being created
local waiting = nil

local STOP_NOTICES = {
  cancelled = "Cancelled.",
  max_tokens = "Stopped: the response hit the token limit.",
  max_turn_requests = "Stopped: too many turns.",
  refusal = "The model refused.",
}

---@param pattern string
---@param data table
local function emit(pattern, data)
  vim.api.nvim_exec_autocmds("User", { pattern = pattern, data = data, modeline = false })
end

function M.refresh_status()
  local s = M.current
  if not s then
    view.set_status("no session")
    return
  end
  local parts = { s.title or "new session" }
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
  parts[#parts + 1] = s.request and "working… (" .. config.options.keymaps.cancel .. " cancels)" or "ready"
  view.set_status(table.concat(parts, " · "))
end

---@param s agent_lsp.Session
---@return vim.lsp.Client?
local function client_of(s)
  local client = vim.lsp.get_client_by_id(s.client_id)
  if client and not client:is_stopped() then
    return client
  end
  return nil
end

---Keep what the server said a session offers, for sessions and completions that have no description yet.
---@param s agent_lsp.Session
local function remember(s)
  M.described = vim.deepcopy({ modes = s.modes, models = s.models, commands = s.commands })
end

---Whether the described model reads images: promptCapabilities.image of a session's description or of a
---setModel answer; nil when the server does not know.
---@param described table?
---@return boolean?
local function image_input(described)
  local caps = type(described) == "table" and described.promptCapabilities or nil
  if type(caps) == "table" and type(caps.image) == "boolean" then
    return caps.image -- false must stay false (`x and false or nil` would make it nil)
  end
  return nil
end

---@param id string
---@param client_id integer
---@param cwd string
---@param described table? The server's description of this session; nil: the lists of the last one described,
---  with no current mode or model until the server says so
---@return agent_lsp.Session
local function make(id, client_id, cwd, described)
  local s = {
    id = id,
    client_id = client_id,
    cwd = cwd,
    modes = { availableModes = {} },
    models = { availableModels = {} },
    commands = {},
  }
  if described then
    s.modes = type(described.modes) == "table" and described.modes or s.modes
    s.models = type(described.models) == "table" and described.models or s.models
    s.commands = type(described.commands) == "table" and described.commands or s.commands
    s.image_input = image_input(described)
    remember(s)
  elseif M.described then
    local last = vim.deepcopy(M.described)
    s.modes = { availableModes = last.modes.availableModes or {} }
    s.models = { availableModels = last.models.availableModels or {} }
    s.commands = last.commands
  end
  return s
end

---Create a new session and make it current (the chat is cleared).
---@param callback fun(session: agent_lsp.Session?)?
function M.new(callback)
  local client = client_mod.ensure()
  if not client then
    client_mod.report("starting the server", "vim.lsp.start returned nothing (is the command installed?)")
    return callback and callback(nil)
  end
  local cwd = client.root_dir or vim.fn.getcwd()
  local params = { cwd = cwd, model = config.options.model, approvalMode = config.options.approval_mode }
  client_mod.request(client, "agent/newSession", params, function(err, result)
    if err or type(result) ~= "table" then
      client_mod.report("agent/newSession", err or "no result")
      return callback and callback(nil)
    end
    M.current = make(result.sessionId, client.id, cwd, result)
    view.transcript():clear()
    M.refresh_status()
    emit("AgentSession", { sessionId = result.sessionId })
    return callback and callback(M.current)
  end)
end

---Call back with the current session, creating one first when there is none (or its server stopped).
---@param callback fun(session: agent_lsp.Session?)
function M.ensure(callback)
  if M.current and client_of(M.current) then
    return callback(M.current)
  end
  if waiting then
    waiting[#waiting + 1] = callback
    return
  end
  waiting = { callback }
  M.new(function(s)
    local queued = waiting or {}
    waiting = nil
    for _, cb in ipairs(queued) do
      cb(s)
    end
  end)
end

---@param s agent_lsp.Session
---@param err lsp.ResponseError?
---@param result table?
local function finish(s, err, result)
  s.request = nil
  local stop = type(result) == "table" and result.stopReason or nil
  require("agent_lsp.permission").dismiss(s.id)
  if M.current == s then
    local t = view.transcript()
    if err then
      t:notice("Error: " .. (err.message or vim.inspect(err)))
    elseif stop and STOP_NOTICES[stop] then
      t:notice(STOP_NOTICES[stop])
    end
    M.refresh_status()
  end
  emit("AgentTurnDone", { sessionId = s.id, stopReason = stop, error = err and err.message or nil })
end

---Run one turn: show the user's message, send `method`, and track the request until it answers.
---@param text string What the chat shows as the user's message
---@param method string agent/prompt or workspace/executeCommand
---@param params fun(s: agent_lsp.Session): table The request's params, for the session
---@param bufnr integer? The buffer the request is about
function M.turn(text, method, params, bufnr)
  M.ensure(function(s)
    if not s then
      return
    end
    if s.request then
      vim.notify("agent-lsp: a turn is running; :AgentCancel it first", vim.log.levels.WARN)
      return
    end
    local client = client_of(s)
    if not client then
      return
    end
    view.transcript():add_user(text)
    s.request = client_mod.request(client, method, params(s), function(err, result)
      finish(s, err, result)
    end, bufnr)
    M.refresh_status()
  end)
end

---Send a prompt in the current session (created when needed).
---@param text string
---@param context table? Editor context: {uri, range?, selectedText?, diagnostics?}
function M.prompt(text, context)
  local images = require("agent_lsp.chat.images")
  local refused = images.refused(M.current)
  if refused then -- before anything is sent; the images stay for another model
    vim.notify(refused, vim.log.levels.ERROR)
    return
  end
  local prompt = images.prompt(require("agent_lsp.chat.context_items").expand(text))
  M.turn(text, "agent/prompt", function(s)
    return { sessionId = s.id, prompt = prompt, context = context }
  end)
end

---Cancel the running turn, if any.
function M.cancel()
  local s = M.current
  local client = s and client_of(s)
  if not (s and client and s.request) then
    vim.notify("agent-lsp: nothing is running", vim.log.levels.INFO)
    return
  end
  client:notify("agent/cancel", { sessionId = s.id })
end

---The choices of an ACP select option (`{value, name}` items, or groups of them), as the session's model list;
---items that are not a choice are left out, as ACP clients skip invalid items.
---@param options any
---@return agent_lsp.Model[]
local function model_choices(options)
  local out = {}
  ---@param item any
  local function add(item)
    if type(item) ~= "table" then
      return
    end
    if type(item.value) == "string" then
      out[#out + 1] = { modelId = item.value, name = type(item.name) == "string" and item.name or item.value }
    elseif vim.islist(item.options) then -- a group of choices under a header
      for _, inner in ipairs(item.options) do
        if type(inner) == "table" and type(inner.value) == "string" then
          add(inner)
        end
      end
    end
  end
  if vim.islist(options) then
    for _, item in ipairs(options) do
      add(item)
    end
  end
  return out
end

---A config_option_update (ACP's session config options): the `model` select becomes the session's models (the
---server sends an endpoint's own list this way, after answering agent/newSession), the `mode` select's value its
---current mode. Other options, and options not shaped as a select, change nothing.
---@param s agent_lsp.Session
---@param options any
local function apply_config_options(s, options)
  if not vim.islist(options) then
    return
  end
  for _, option in ipairs(options) do
    if type(option) == "table" and type(option.currentValue) == "string" then
      if option.id == "model" then
        local models = model_choices(option.options)
        if #models > 0 then
          s.models = { currentModelId = option.currentValue, availableModels = models }
        end
      elseif option.id == "mode" then
        s.modes.currentModeId = option.currentValue
      end
    end
  end
  remember(s)
end

---An agent/update notification from the server.
---@param params { sessionId: string, update: table, replay: boolean? }
---@param client_id integer
function M.on_update(params, client_id)
  if type(params) ~= "table" or type(params.update) ~= "table" then
    return
  end
  local s = M.current
  if not s or s.id ~= params.sessionId then
    -- A turn the server started for us (a code action run from another client path): follow it.
    local client = vim.lsp.get_client_by_id(client_id)
    s = make(params.sessionId, client_id, client and client.root_dir or vim.fn.getcwd())
    M.current = s
    view.transcript():clear()
  end
  local update = params.update
  local kind = update.sessionUpdate
  if kind == "current_mode_update" then
    s.modes.currentModeId = update.currentModeId
  elseif kind == "session_info_update" then
    s.title = update.title or s.title
  elseif kind == "usage_update" then
    s.usage = { used = update.used, size = update.size }
  elseif kind == "config_option_update" then
    apply_config_options(s, update.configOptions)
  elseif kind == "available_commands_update" then
    s.commands = update.availableCommands or s.commands
    remember(s)
  else
    view.transcript():apply(update)
  end
  if kind ~= "agent_message_chunk" and kind ~= "agent_thought_chunk" then
    M.refresh_status()
  end
  emit("AgentUpdate", params)
end

---A session the server opened for this client (agent/fork) becomes the current one. The server replayed its
---conversation before answering, which already made it current (on_update); a fork with nothing to replay
---starts an empty chat here.
---@param id string
---@param client vim.lsp.Client
---@param described table The server's answer (modes, models, commands)
---@return agent_lsp.Session
function M.opened(id, client, described)
  local replayed = M.current and M.current.id == id
  local s = make(id, client.id, client.root_dir or vim.fn.getcwd(), described)
  M.current = s
  if not replayed then
    view.transcript():clear()
  end
  M.refresh_status()
  emit("AgentSession", { sessionId = id, forked = true })
  return s
end

---Pick a saved session of this workspace with vim.ui.select and load it (its conversation is replayed).
function M.pick()
  local client = client_mod.ensure()
  if not client then
    return
  end
  local cwd = client.root_dir or vim.fn.getcwd()
  client_mod.request(client, "agent/listSessions", { cwd = cwd }, function(err, result)
    if err then
      return client_mod.report("agent/listSessions", err)
    end
    local sessions = result and result.sessions or {}
    if #sessions == 0 then
      vim.notify("agent-lsp: no saved sessions for " .. cwd, vim.log.levels.INFO)
      return
    end
    vim.ui.select(sessions, {
      prompt = "Load agent session",
      kind = "agent_lsp_session",
      format_item = function(item)
        local title = item.title and item.title ~= vim.NIL and item.title or item.sessionId
        return ("%s  (%s, %d prompts)"):format(title, item.updatedAt or "", item.promptCount or 0)
      end,
    }, function(choice)
      if choice then
        M.load(choice.sessionId)
      end
    end)
  end)
end

---Load a saved session: the chat is cleared and the server replays the conversation into it.
---@param id string
---@param callback fun(session: agent_lsp.Session?)?
function M.load(id, callback)
  local client = client_mod.ensure()
  if not client then
    return callback and callback(nil)
  end
  local cwd = client.root_dir or vim.fn.getcwd()
  local s = make(id, client.id, cwd)
  M.current = s
  view.transcript():clear()
  client_mod.request(client, "agent/loadSession", { sessionId = id, cwd = cwd }, function(err, result)
    if err or type(result) ~= "table" then
      client_mod.report("agent/loadSession", err or "no result")
      return callback and callback(nil)
    end
    s.modes = type(result.modes) == "table" and result.modes or s.modes
    s.models = type(result.models) == "table" and result.models or s.models
    s.commands = type(result.commands) == "table" and result.commands or s.commands
    s.image_input = image_input(result)
    remember(s)
    M.refresh_status()
    emit("AgentSession", { sessionId = id, loaded = true })
    return callback and callback(s)
  end)
end

---@class agent_lsp.Switch
---@field method string The request that switches it
---@field param string Its parameter naming the choice
---@field state string The session field holding the choices (`modes` or `models`)
---@field current string The field of that state naming the current choice
---@field list string The field of that state listing the choices
---@field id string The field of a choice naming it
---@field prompt string
---@field kind string

---Switch a session setting (mode or model) to `value`, or ask with vim.ui.select when it is nil.
---@param sw agent_lsp.Switch
---@param value string?
local function switch(sw, value)
  M.ensure(function(s)
    if not s then
      return
    end
    ---@param id string
    local function apply(id)
      local client = client_of(s)
      if not client then
        return
      end
      client_mod.request(client, sw.method, { sessionId = s.id, [sw.param] = id }, function(err, result)
        if err then
          return client_mod.report(sw.method, err)
        end
        -- A model switch may change provider, and with it the list of models on offer.
        if type(result) == "table" and type(result[sw.state]) == "table" then
          s[sw.state] = result[sw.state]
        end
        if sw.state == "models" then
          s.image_input = image_input(result)
        end
        s[sw.state][sw.current] = id
        remember(s)
        M.refresh_status()
      end)
    end
    if value then
      return apply(value)
    end
    local state = s[sw.state] or {}
    vim.ui.select(state[sw.list] or {}, {
      prompt = sw.prompt,
      kind = sw.kind,
      format_item = function(item)
        local current = item[sw.id] == state[sw.current] and " (current)" or ""
        return ("%s%s%s"):format(item.name, current, item.description and (" — " .. item.description) or "")
      end,
    }, function(choice)
      if choice then
        apply(choice[sw.id])
      end
    end)
  end)
end

---Switch the current session's approval mode; asks with vim.ui.select when `mode` is nil.
---@param mode string?
function M.set_mode(mode)
  switch({
    method = "agent/setMode",
    param = "modeId",
    state = "modes",
    current = "currentModeId",
    list = "availableModes",
    id = "id",
    prompt = "Approval mode",
    kind = "agent_lsp_mode",
  }, mode)
end

---Switch the current session's model; asks with vim.ui.select when `model` is nil.
---@param model string?
function M.set_model(model)
  switch({
    method = "agent/setModel",
    param = "modelId",
    state = "models",
    current = "currentModelId",
    list = "availableModels",
    id = "modelId",
    prompt = "Model",
    kind = "agent_lsp_model",
  }, model)
end

---@type table<string, { state: string, list: string, id: string }>
local LISTS = {
  modes = { state = "modes", list = "availableModes", id = "id" },
  models = { state = "models", list = "availableModels", id = "modelId" },
}

---Command-line completion for :AgentMode / :AgentModel: the ids the server offers, from the current session or
---else the last one described. Before any session exists there is nothing to offer yet: one is opened in the
---background (as the command itself would), so the next <Tab> lists what the server offers.
---@param what "modes"|"models"
---@param arglead string
---@return string[]
function M.complete(what, arglead)
  local spec = LISTS[what]
  local described = M.current or M.described
  if not described then
    vim.schedule(function()
      M.ensure(function() end)
    end)
    return {}
  end
  local out = {}
  for _, item in ipairs((described[spec.state] or {})[spec.list] or {}) do
    local id = item[spec.id]
    if type(id) == "string" and vim.startswith(id, arglead or "") then
      out[#out + 1] = id
    end
  end
  return out
end

return M
