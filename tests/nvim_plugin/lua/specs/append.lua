--- Spec: edits appending to a file's end (open or not) leave exactly the server's text, no stray last line.

local H = require("harness")

return function()
  H.setup({ approval_mode = "yolo" })
  local done = H.record("AgentTurnDone")
  vim.cmd.edit(H.project .. "/stats.py")
  local buf = vim.api.nvim_get_current_buf()
  require("agent_lsp").prompt("add total() to stats.py and notes.txt")
  H.wait(function()
    return #done == 1
  end, "the end of the turn")
  H.eq(done[1].stopReason, "end_turn", "stop reason")
  H.eq(vim.api.nvim_buf_get_lines(buf, 0, -1, false), {
    "def mean(values):",
    "    return sum(values) / (len(values) - 1)",
    "",
    "def total(values):",
    "    return sum(values)",
  }, "the open file")
  local notes = vim.fn.bufnr(H.project .. "/notes.txt")
  H.ok(notes ~= -1, "a buffer for notes.txt")
  H.eq(vim.api.nvim_buf_get_lines(notes, 0, -1, false), { "first", "second" }, "the file that was not open")
  H.no_sync_warning()
  H.contains(H.chat_text(), "Appended.")
end
