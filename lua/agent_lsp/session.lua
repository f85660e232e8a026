--- Agent sessions: the current one, and opening them over the agent/* requests (new, load, pick, the fork's
--- answer). Turns are in agent_lsp.turns, the server's updates in agent_lsp.updates, mode and model in
--- agent_lsp.choices, the winbar in agent_lsp.chat.status.

local client_mod = require("agent_lsp.client")
local config = require("agent_lsp.config")
local status = require("agent_lsp.chat.status")
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
---@field usage agent_lsp.Usage?
---@field marks table<integer, { title: string?, usage: agent_lsp.Usage? }>? Title and usage before each user message
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

---@param pattern string
---@param data table
function M.emit(pattern, data)
  vim.api.nvim_exec_autocmds("User", { pattern = pattern, data = data, modeline = false })
end

---@param s agent_lsp.Session
---@return vim.lsp.Client?
function M.client_of(s)
  local client = vim.lsp.get_client_by_id(s.client_id)
  if client and not client:is_stopped() then
    return client
  end
  return nil
end

---Keep what the server said a session offers, for sessions and completions that have no description yet.
---@param s agent_lsp.Session
function M.remember(s)
  M.described = vim.deepcopy({ modes = s.modes, models = s.models, commands = s.commands })
end

---Whether the described model reads images: promptCapabilities.image of a session's description or of a
---setModel answer; nil when the server does not know.
---@param described table?
---@return boolean?
function M.image_input(described)
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
function M.make(id, client_id, cwd, described)
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
    s.image_input = M.image_input(described)
    M.remember(s)
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
  local params = { cwd = cwd, model = config.options.model, approvalMode = config.session_mode(config.options) }
  client_mod.request(client, "agent/newSession", params, function(err, result)
    if err or type(result) ~= "table" then
      client_mod.report("agent/newSession", err or "no result")
      return callback and callback(nil)
    end
    M.current = M.make(result.sessionId, client.id, cwd, result)
    view.transcript():clear()
    status.refresh()
    M.emit("AgentSession", { sessionId = result.sessionId })
    return callback and callback(M.current)
  end)
end

---Call back with the current session, creating one first when there is none (or its server stopped).
---@param callback fun(session: agent_lsp.Session?)
function M.ensure(callback)
  if M.current and M.client_of(M.current) then
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

---A session the server opened for this client (agent/fork) becomes the current one. The server replayed its
---conversation before answering, which already made it current (on_update); a fork with nothing to replay
---starts an empty chat here.
---@param id string
---@param client vim.lsp.Client
---@param described table The server's answer (modes, models, commands)
---@return agent_lsp.Session
function M.opened(id, client, described)
  local replayed = M.current and M.current.id == id and M.current or nil
  local s = M.make(id, client.id, client.root_dir or vim.fn.getcwd(), described)
  M.current = s
  if replayed then -- what the replay told: its title, usage and the marks of its messages
    s.title, s.usage, s.marks = replayed.title, replayed.usage, replayed.marks
  else
    view.transcript():clear()
  end
  status.refresh()
  M.emit("AgentSession", { sessionId = id, forked = true })
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
  local s = M.make(id, client.id, cwd)
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
    s.image_input = M.image_input(result)
    M.remember(s)
    status.refresh()
    M.emit("AgentSession", { sessionId = id, loaded = true })
    return callback and callback(s)
  end)
end

return M
