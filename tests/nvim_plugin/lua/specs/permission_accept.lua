--- Spec: an edit is approved in the diff tab (<localleader>a); the buffer changes unsaved, and one `u` undoes it.

local H = require("harness")

return function()
  H.setup()
  local questions = H.stub_select(H.pick("Review diff"))
  local answers = H.record("AgentPermission")
  local done = H.record("AgentTurnDone")
  local path = H.project .. "/stats.py"
  vim.cmd.edit(path)
  local file_buf = vim.api.nvim_get_current_buf()
  local before = vim.api.nvim_buf_get_lines(file_buf, 0, -1, false)
  H.wait(function()
    return #vim.lsp.get_clients({ bufnr = file_buf, name = "agent-lsp" }) == 1
  end, "the file buffer to be attached")

  require("agent_lsp").prompt("fix mean()")
  H.wait(function()
    return #vim.api.nvim_list_tabpages() == 2
  end, "the diff tab")
  H.eq(#questions, 1, "permission questions")
  H.contains(questions[1].prompt, "Agent wants to: ")
  H.eq(questions[1].labels[1], "Review diff", "first choice")
  H.ok(vim.tbl_contains(questions[1].labels, "Allow once"), "an Allow choice")

  -- The tab shows the file buffer itself beside the proposal, both in diff mode.
  local wins = vim.api.nvim_tabpage_list_wins(0)
  H.eq(#wins, 2, "windows in the diff tab")
  H.eq(vim.api.nvim_win_get_buf(wins[1]), file_buf, "left window's buffer")
  H.ok(vim.wo[wins[1]].diff and vim.wo[wins[2]].diff, "both windows in diff mode")
  local proposal = vim.api.nvim_win_get_buf(wins[2])
  H.contains(table.concat(vim.api.nvim_buf_get_lines(proposal, 0, -1, false), "\n"), "return sum(values) / len(values)")
  H.eq(vim.api.nvim_get_current_win(), wins[2], "cursor in the proposal")

  -- The review's keys are buffer-local and leave Neovim's own ga and gr… (grn, grr, gra) alone.
  H.contains(vim.wo[wins[2]].winbar, "\\a accept · \\r reject")
  for _, buf in ipairs({ file_buf, proposal }) do
    for _, lhs in ipairs({ "ga", "gr" }) do
      local map = vim.api.nvim_buf_call(buf, function()
        return vim.fn.maparg(lhs, "n", false, true)
      end)
      H.ok(vim.tbl_isempty(map) or map.buffer ~= 1, lhs .. " not mapped in the review's buffers")
    end
  end
  vim.api.nvim_feedkeys("\\a", "mx", false) -- <localleader>a
  H.wait(function()
    return #answers == 1
  end, "the permission answer")
  H.eq(answers[1].response, { outcome = { outcome = "selected", optionId = "proceed_once" } }, "response")
  H.eq(#vim.api.nvim_list_tabpages(), 1, "tabs after accepting")
  H.ok(not vim.wo[vim.fn.bufwinid(file_buf)].diff, "diff mode off again")
  local ga = vim.api.nvim_buf_call(file_buf, function()
    return vim.fn.maparg("ga", "n", false, true)
  end)
  H.eq(ga.buffer, nil, "the review keymap left the file buffer")

  H.wait(function()
    return #done == 1
  end, "the end of the turn")
  H.eq(done[1].stopReason, "end_turn", "stop reason")
  local after = vim.api.nvim_buf_get_lines(file_buf, 0, -1, false)
  H.contains(table.concat(after, "\n"), "return sum(values) / len(values)")
  -- The buffer had no unsaved changes, so the accepted edit is written (save_after_edit): commands the agent
  -- runs next see it. Undo still works.
  H.ok(not vim.bo[file_buf].modified, "the accepted edit was saved")
  H.eq(vim.fn.readfile(path), after, "file on disk")
  H.contains(H.chat_text(), "Fixed the divisor.")

  vim.api.nvim_set_current_buf(file_buf)
  vim.cmd("normal! u")
  H.eq(vim.api.nvim_buf_get_lines(file_buf, 0, -1, false), before, "lines after one undo")
end
