--- The session's choices the server offers: switch its approval mode or model (agent/setMode, agent/setModel),
--- follow ACP config options (config_option_update), and complete :AgentMode / :AgentModel.

local client_mod = require("agent_lsp.client")
local session = require("agent_lsp.session")
local status = require("agent_lsp.chat.status")

local M = {}

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
function M.apply_config_options(s, options)
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
  session.remember(s)
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
  session.ensure(function(s)
    if not s then
      return
    end
    ---@param id string
    local function apply(id)
      local client = session.client_of(s)
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
          s.image_input = session.image_input(result)
        end
        s[sw.state][sw.current] = id
        session.remember(s)
        status.refresh()
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
  local described = session.current or session.described
  if not described then
    vim.schedule(function()
      session.ensure(function() end)
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
