--- Spec: on an OpenAI-compatible endpoint the server answers agent/newSession with the current model only and sends
--- the endpoint's GET /v1/models list right after, as an agent/update config_option_update: :AgentModel completion
--- and its picker then offer every model the endpoint lists, and a switch goes to the server. A malformed
--- config_option_update changes nothing and raises nothing; other option ids are ignored.

local H = require("harness")

return function()
  H.setup_endpoint()
  local session = require("agent_lsp.session")
  require("agent_lsp.chat.view").open()
  local listed = vim.split(assert(os.getenv("AGENT_NVIM_OPENAI_MODELS")), ",")
  local current = assert(os.getenv("OPENAI_MODEL"))
  local updates = H.record("AgentUpdate")

  -- The answer itself names the current model only: the endpoint's list is not waited for.
  local answered ---@type string[]?
  session.new(function(s)
    answered = {}
    for _, m in ipairs(assert(s).models.availableModels) do
      answered[#answered + 1] = m.modelId
    end
  end)
  H.wait(function()
    return answered ~= nil
  end, "the agent/newSession answer")
  H.eq(answered, { current }, "the models in the answer")

  -- The list follows as a config_option_update, and completion offers every model the endpoint lists.
  H.wait(function()
    return #vim.fn.getcompletion("AgentModel ", "cmdline") == #listed
  end, "the endpoint's models in :AgentModel completion")
  H.eq(vim.fn.getcompletion("AgentModel ", "cmdline"), listed, "completion")
  H.eq(vim.fn.getcompletion("AgentModel s", "cmdline"), { "small" }, "completion of a prefix")
  H.eq(session.current.models.currentModelId, current, "the current model")
  local kinds = {}
  for _, u in ipairs(updates) do
    kinds[#kinds + 1] = u.update.sessionUpdate
  end
  H.ok(vim.list_contains(kinds, "config_option_update"), "a config_option_update among " .. vim.inspect(kinds))

  -- The picker (:AgentModel without an argument) lists them too; picking one switches on the server.
  local questions = H.stub_select(H.pick("small"))
  vim.cmd("AgentModel")
  H.wait(function()
    return session.current.models.currentModelId == "small"
  end, "the switch to small")
  H.eq(questions[1].labels, { current .. " (current)", "small" }, "the picker's choices")
  H.eq(vim.fn.getcompletion("AgentModel ", "cmdline"), listed, "completion after the switch")

  local s = session.current
  local before = vim.deepcopy({ models = s.models, modes = s.modes })
  ---@param options any The update's configOptions
  local function update(options)
    local payload = { sessionUpdate = "config_option_update", configOptions = options }
    require("agent_lsp.updates").on_update({ sessionId = s.id, update = payload }, s.client_id)
  end

  -- Malformed updates change nothing and raise nothing.
  for _, bad in ipairs({
    vim.NIL,
    "model",
    { { id = "model", currentValue = 3, options = { { value = "x", name = "x" } } } },
    { { id = "model", currentValue = "x", options = "x" } },
    { { id = "model", currentValue = "x", options = { { name = "no value" }, 7 } } },
    { { id = "mode", currentValue = vim.NIL } },
    { "not an option" },
  }) do
    update(bad)
    H.eq({ models = s.models, modes = s.modes }, before, "after " .. vim.inspect(bad))
  end
  local bare = { sessionId = s.id, update = { sessionUpdate = "config_option_update" } }
  require("agent_lsp.updates").on_update(bare, s.client_id)
  H.eq({ models = s.models, modes = s.modes }, before, "after an update without configOptions")

  -- Other option ids are ignored; the mode option sets the current mode; grouped model choices are flattened.
  update({
    { id = "thought_level", type = "select", currentValue = "high", options = { { value = "high", name = "High" } } },
    { id = "mode", type = "select", currentValue = "plan", options = {} },
    {
      id = "model",
      type = "select",
      currentValue = "b",
      options = {
        { group = "one", name = "One", options = { { value = "a", name = "Model A" } } },
        { group = "two", name = "Two", options = { { value = "b", name = "Model B" }, { name = "skipped" } } },
      },
    },
  })
  H.eq(s.modes.currentModeId, "plan", "the mode option's value")
  H.eq(s.modes.availableModes, before.modes.availableModes, "the modes on offer")
  H.eq(s.models, {
    currentModelId = "b",
    availableModels = { { modelId = "a", name = "Model A" }, { modelId = "b", name = "Model B" } },
  }, "the grouped models")
  H.eq(vim.fn.getcompletion("AgentModel ", "cmdline"), { "a", "b" }, "completion of the grouped models")
end
