--- Spec (issue #38): a message sent from the chat prompt while a turn runs steers it (agent/steer): the turn is
--- held on a permission question, the message goes in and is shown as sent into the running turn, the question is
--- answered, and the same turn ends once, its next model request carrying the message (the test reads it).

local H = require("harness")

return function()
  H.setup_endpoint({ approval_mode = "default" })
  local done = H.record("AgentTurnDone")
  local steered = H.record("AgentSteer")
  local pending ---@type fun(choice: any)?
  local items ---@type any[]
  ---@diagnostic disable-next-line: duplicate-set-field
  vim.ui.select = function(choices, _, on_choice)
    items, pending = choices, on_choice
  end
  vim.cmd("AgentChat")
  vim.cmd.stopinsert()
  require("agent_lsp").prompt("run the command")
  H.wait(function()
    return pending ~= nil
  end, "the permission question")
  local s = require("agent_lsp.session").current
  H.ok(require("agent_lsp.turns").can_steer(s), "the server lists agent/steer")

  -- Sent from the prompt buffer with <CR> while the turn runs.
  local view = require("agent_lsp.chat.view")
  vim.api.nvim_buf_set_lines(view.prompt_buf(), 0, -1, false, { "also say bye" })
  local _, pwin = view.windows()
  vim.api.nvim_set_current_win(assert(pwin))
  vim.api.nvim_feedkeys(vim.keycode("<CR>"), "mx", false)
  H.wait(function()
    return #steered == 1
  end, "the steer's answer")
  H.eq(steered[1].outcome, "injected", "injected into the running turn")
  H.contains(H.chat_text(), "## You (into the running turn)\nalso say bye", "shown where it went in")

  local allow
  for _, item in ipairs(items) do
    allow = allow or ((type(item) == "table" and (item.name or item.label or ""):find("Allow once", 1, true)) and item)
  end
  assert(pending)(allow or items[1])
  H.wait(function()
    return #done == 1
  end, "the end of the turn")
  H.eq(done[1].stopReason, "end_turn", "one turn, ended once")
  H.contains(H.chat_text(), "Ran it, and bye.")
end
