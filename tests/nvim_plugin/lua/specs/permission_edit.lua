--- Spec: the proposal is edited in the diff tab before accepting; the answer carries the edited text.

local H = require("harness")

return function()
  H.setup()
  H.stub_select(H.pick("Review diff"))
  local answers = H.record("AgentPermission")
  local done = H.record("AgentTurnDone")
  vim.cmd.edit(H.project .. "/stats.py")

  require("agent_lsp").prompt("fix mean()")
  H.wait(function()
    return #vim.api.nvim_list_tabpages() == 2
  end, "the diff tab")
  local proposal = vim.api.nvim_get_current_buf()
  local lines = vim.api.nvim_buf_get_lines(proposal, 0, -1, false)
  lines[#lines + 1] = "# reviewed"
  vim.api.nvim_buf_set_lines(proposal, 0, -1, false, lines)
  vim.api.nvim_feedkeys("\\a", "mx", false) -- <localleader>a
  H.wait(function()
    return #answers == 1
  end, "the permission answer")
  local response = answers[1].response
  H.eq(response.outcome, { outcome = "selected", optionId = "proceed_once" }, "outcome")
  H.eq(response._meta.modifiedContent, table.concat(lines, "\n") .. "\n", "modified content")
  H.wait(function()
    return #done == 1
  end, "the end of the turn")
end
