--- agent/update notifications from the server: session state (mode, title, usage, config options, commands) on the
--- session, everything else into the chat transcript.

local choices = require("agent_lsp.choices")
local session = require("agent_lsp.session")
local status = require("agent_lsp.chat.status")
local view = require("agent_lsp.chat.view")

local M = {}

---An agent/update notification from the server.
---@param params { sessionId: string, update: table, replay: boolean? }
---@param client_id integer
function M.on_update(params, client_id)
  if type(params) ~= "table" or type(params.update) ~= "table" then
    return
  end
  local s = session.current
  if not s or s.id ~= params.sessionId then
    -- A turn the server started for us (a code action run from another client path): follow it.
    local client = vim.lsp.get_client_by_id(client_id)
    s = session.make(params.sessionId, client_id, client and client.root_dir or vim.fn.getcwd())
    session.current = s
    view.transcript():clear()
  end
  local update = params.update
  local kind = update.sessionUpdate
  local meta = type(update._meta) == "table" and update._meta["agent-lsp"] or nil
  if type(meta) == "table" and type(meta.subagent) == "table" then
    -- A subagent's own update: drawn under its parent call; its title, usage and mode are not this session's.
    view.transcript():apply(update)
  elseif kind == "current_mode_update" then
    s.modes.currentModeId = update.currentModeId
  elseif kind == "session_info_update" then
    s.title = update.title or s.title
  elseif kind == "usage_update" then
    s.usage = { used = update.used, size = update.size, cost = type(update.cost) == "table" and update.cost or nil }
  elseif kind == "compaction_update" and update.status == "completed" then
    -- The context holds the summary now: its size is what the usage line shows until the next model answer.
    if s.usage and type(meta) == "table" and type(meta.tokensAfter) == "number" then
      s.usage = vim.tbl_extend("force", s.usage, { used = meta.tokensAfter })
    end
    view.transcript():apply(update)
  elseif kind == "config_option_update" then
    choices.apply_config_options(s, update.configOptions)
  elseif kind == "available_commands_update" then
    s.commands = update.availableCommands or s.commands
    session.remember(s)
  else
    local t = view.transcript()
    local users = t:user_count()
    t:apply(update)
    if t:user_count() > users then -- a replayed message: what the session had before it
      status.mark(s, users)
    end
  end
  if kind ~= "agent_message_chunk" and kind ~= "agent_thought_chunk" then
    status.refresh()
  end
  session.emit("AgentUpdate", params)
end

return M
