--- Spec: an edit rejected in the diff tab (gr) leaves the buffer and the file unchanged; the model hears it and
--- answers in the same turn.

local H = require("harness")

return function()
  H.setup()
  H.stub_select(H.pick("Review diff"))
  local answers = H.record("AgentPermission")
  local done = H.record("AgentTurnDone")
  local path = H.project .. "/stats.py"
  vim.cmd.edit(path)
  local file_buf = vim.api.nvim_get_current_buf()
  local before = vim.api.nvim_buf_get_lines(file_buf, 0, -1, false)
  vim.keymap.set("n", "ga", "<Cmd>let g:user_ga = 1<CR>", { buffer = file_buf, desc = "the user's own" })

  require("agent_lsp").prompt("fix mean()")
  H.wait(function()
    return #vim.api.nvim_list_tabpages() == 2
  end, "the diff tab")
  vim.api.nvim_feedkeys("\\r", "mx", false) -- <localleader>r
  H.wait(function()
    return #done == 1
  end, "the end of the turn")
  H.eq(answers[1].response, { outcome = { outcome = "selected", optionId = "reject" } }, "response")
  H.eq(#vim.api.nvim_list_tabpages(), 1, "tabs after rejecting")
  H.eq(vim.api.nvim_buf_get_lines(file_buf, 0, -1, false), before, "buffer")
  H.ok(not vim.bo[file_buf].modified, "buffer not modified")
  H.eq(vim.fn.readfile(path), before, "file on disk")
  H.contains(H.chat_text(), "✗ ")
  H.contains(H.chat_text(), 'Tool "replace" was canceled by the user.')
  H.contains(H.chat_text(), "Understood, no change.")
  local ga = vim.api.nvim_buf_call(file_buf, function()
    return vim.fn.maparg("ga", "n", false, true)
  end)
  H.eq(ga.desc, "the user's own", "the user's buffer-local ga is back")
end
