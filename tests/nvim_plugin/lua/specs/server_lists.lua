--- Spec: modes, models and slash commands come from the server: :AgentMode / :AgentModel complete what it
--- offers (opening a session when none exists), the winbar names the mode as the server does, a session the
--- server started for us starts from the last lists described, and an unknown mode is refused by the server.

local H = require("harness")

return function()
  H.setup()
  local session = require("agent_lsp.session")
  local view = require("agent_lsp.chat.view")
  view.open()
  H.eq(session.current, nil, "no session yet")

  -- No session yet: nothing to offer, but one is opened, so the next <Tab> lists the server's modes.
  H.eq(vim.fn.getcompletion("AgentMode ", "cmdline"), {}, "modes before any session")
  H.wait(function()
    return session.current ~= nil
  end, "the session completion opened")
  local expected = vim.split(assert(os.getenv("AGENT_NVIM_MODES")), ",")
  H.eq(vim.fn.getcompletion("AgentMode ", "cmdline"), expected, "the server's modes")
  H.eq(vim.fn.getcompletion("AgentMode a", "cmdline"), { "auto_edit" }, "modes starting with a")
  local models = vim.fn.getcompletion("AgentModel ", "cmdline")
  local current_model = session.current.models.currentModelId
  H.ok(vim.list_contains(models, current_model), "the current model among " .. vim.inspect(models))
  H.eq(#models, #session.current.models.availableModels, "every model the server offers")
  local names = {}
  for _, c in ipairs(session.current.commands) do
    names[#names + 1] = c.name
  end
  H.ok(vim.list_contains(names, "memory") and vim.list_contains(names, "help"), "slash commands " .. vim.inspect(names))

  -- The winbar names the mode the way the server does.
  local default_name = session.current.modes.availableModes[1].name
  H.contains(view.winbar(), "mode: " .. default_name)
  vim.cmd("AgentMode auto_edit")
  H.wait(function()
    return session.current.modes.currentModeId == "auto_edit"
  end, "auto_edit")
  local auto_name
  for _, m in ipairs(session.current.modes.availableModes) do
    auto_name = m.id == "auto_edit" and m.name or auto_name
  end
  H.contains(view.winbar(), "mode: " .. auto_name)

  -- A session the server started for us (another client path) starts from the last lists described.
  local client_id = session.current.client_id
  local plan = { sessionId = "started-elsewhere", update = { sessionUpdate = "plan", entries = {} } }
  require("agent_lsp.updates").on_update(plan, client_id)
  H.eq(session.current.id, "started-elsewhere", "adopted session")
  H.eq(#session.current.modes.availableModes, #expected, "its modes")
  H.ok(#session.current.commands > 0, "its slash commands")
  H.eq(vim.fn.getcompletion("AgentMode y", "cmdline"), { "yolo" }, "completion in the adopted session")

  -- The plugin no longer judges modes: an unknown one goes to the server, which refuses it and names its modes.
  local messages = {} ---@type string[]
  ---@diagnostic disable-next-line: duplicate-set-field
  vim.notify = function(msg)
    messages[#messages + 1] = msg
  end
  require("agent_lsp.config").set({ cmd = require("agent_lsp.config").options.cmd, approval_mode = "careful" })
  local refused = false
  session.new(function(s)
    refused = s == nil
  end)
  H.wait(function()
    return refused
  end, "the refusal")
  H.contains(table.concat(messages, "\n"), "agent/newSession failed")
  H.contains(table.concat(messages, "\n"), table.concat(expected, ", "))
end
