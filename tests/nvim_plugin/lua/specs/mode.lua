--- Spec: :AgentMode picks a mode through vim.ui.select; in YOLO the edit lands without a question.

local H = require("harness")

return function()
  H.setup()
  local done = H.record("AgentTurnDone")
  local session = require("agent_lsp.session")
  local questions = H.stub_select(function(items)
    for _, item in ipairs(items) do
      if item.id == "yolo" then
        return item
      end
    end
  end)
  vim.cmd.edit(H.project .. "/stats.py")
  local file_buf = vim.api.nvim_get_current_buf()
  vim.cmd("AgentMode")
  H.wait(function()
    return session.current and session.current.modes.currentModeId == "yolo"
  end, "yolo mode")
  H.eq(#questions, 1, "questions")
  H.contains(questions[1].labels[1], "Default (current)")

  require("agent_lsp").prompt("fix mean()")
  H.wait(function()
    return #done == 1
  end, "the end of the turn")
  H.eq(#questions, 1, "no permission question in yolo mode")
  H.contains(table.concat(vim.api.nvim_buf_get_lines(file_buf, 0, -1, false), "\n"), "/ len(values)")

  vim.cmd("AgentMode plan")
  H.wait(function()
    return session.current.modes.currentModeId == "plan"
  end, "plan mode by argument")
end
