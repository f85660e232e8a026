--- Spec: :AgentCancel while the diff tab is open closes the tab, ends the turn and leaves the buffer alone.

local H = require("harness")

return function()
  H.setup()
  H.stub_select(H.pick("Review diff"))
  local answers = H.record("AgentPermission")
  local done = H.record("AgentTurnDone")
  vim.cmd.edit(H.project .. "/stats.py")
  local file_buf = vim.api.nvim_get_current_buf()
  local before = vim.api.nvim_buf_get_lines(file_buf, 0, -1, false)

  require("agent_lsp").prompt("fix mean()")
  H.wait(function()
    return #vim.api.nvim_list_tabpages() == 2
  end, "the diff tab")
  vim.cmd("AgentCancel")
  H.wait(function()
    return #done == 1
  end, "the end of the turn")
  H.eq(done[1].stopReason, "cancelled", "stop reason")
  H.eq(#vim.api.nvim_list_tabpages(), 1, "the diff tab closed")
  H.eq(answers[1].response, { outcome = { outcome = "cancelled" } }, "the question's answer")
  H.eq(vim.api.nvim_buf_get_lines(file_buf, 0, -1, false), before, "buffer")
  H.ok(not vim.wo[vim.fn.bufwinid(file_buf)].diff, "diff mode off again")
end
