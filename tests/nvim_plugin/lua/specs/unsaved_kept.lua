--- Spec: an agent edit to a buffer holding the user's unsaved changes lands in the buffer and is never written.

local H = require("harness")

return function()
  H.setup({ approval_mode = "yolo" })
  local done = H.record("AgentTurnDone")
  local path = H.project .. "/stats.py"
  vim.cmd.edit(path)
  local buf = vim.api.nvim_get_current_buf()
  local before = vim.fn.readfile(path)
  vim.api.nvim_buf_set_lines(buf, 0, 0, false, { "# the user's own unsaved note" })
  require("agent_lsp").prompt("fix the divisor")
  H.wait(function()
    return #done == 1
  end, "the end of the turn")
  H.eq(done[1].stopReason, "end_turn", "stop reason")
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  H.eq(lines[1], "# the user's own unsaved note", "the user's change kept")
  H.contains(table.concat(lines, "\n"), "return sum(values) / len(values)")
  H.ok(vim.bo[buf].modified, "still unsaved: the user decides when to write it")
  H.eq(vim.fn.readfile(path), before, "file on disk untouched")
end
