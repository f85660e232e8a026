--- Spec: an edit reviewed inline in the file's buffer: extmarks per hunk, ]h / [h, one hunk accepted and one
--- rejected; one answer carries the resulting text, the buffer and the file hold it, one `u` restores the original.

local H = require("harness")

return function()
  H.setup()
  local questions = H.stub_select(H.pick("Review inline (hunk by hunk)"))
  local answers = H.record("AgentPermission")
  local done = H.record("AgentTurnDone")
  local inline = require("agent_lsp.inline")
  local path = H.project .. "/stats.py"
  vim.cmd.edit(path)
  local buf = vim.api.nvim_get_current_buf()
  local before = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  H.wait(function()
    return #vim.lsp.get_clients({ bufnr = buf, name = "agent-lsp" }) == 1
  end, "the file buffer to be attached")

  require("agent_lsp").prompt("fix mean() and total()")
  H.wait(function()
    return inline.get(buf) ~= nil
  end, "the inline review")
  H.eq(questions[1].labels[1], "Review diff", "the diff tab is still the first choice")
  H.eq(questions[1].labels[2], "Review inline (hunk by hunk)", "the inline review is offered")
  H.eq(#vim.api.nvim_list_tabpages(), 1, "no diff tab")
  H.eq(vim.api.nvim_get_current_buf(), buf, "the review is in the file's buffer")
  H.eq(vim.api.nvim_buf_get_lines(buf, 0, -1, false), before, "the buffer still holds the original")
  H.eq(#inline.get(buf).hunks, 2, "hunks")

  -- Removed lines are highlighted, added lines are virtual lines below them.
  local marks = vim.api.nvim_buf_get_extmarks(buf, inline.namespace, 0, -1, { details = true })
  local removed, added = {}, {}
  for _, mark in ipairs(marks) do
    local row, details = mark[2], mark[4]
    if details.line_hl_group == "AgentLspInlineRemoved" then
      removed[#removed + 1] = row
    end
    for _, vl in ipairs(details.virt_lines or {}) do
      added[#added + 1] = { row, vl[1][1] }
    end
  end
  H.eq(removed, { 1, 5 }, "rows drawn as removed")
  H.eq(added, { { 1, "+     return sum(values) / len(values)" }, { 5, "+     return sum(values)" } }, "virtual lines")

  -- ]h / [h move between hunks (buffer-local while the review is open).
  H.eq(vim.api.nvim_win_get_cursor(0)[1], 2, "the cursor starts on the first hunk")
  vim.api.nvim_feedkeys("]h", "mx", false)
  H.eq(vim.api.nvim_win_get_cursor(0)[1], 6, "]h goes to the second hunk")
  vim.api.nvim_feedkeys("[h", "mx", false)
  H.eq(vim.api.nvim_win_get_cursor(0)[1], 2, "[h goes back")

  vim.api.nvim_feedkeys("\\a", "mx", false) -- <localleader>a: accept the hunk under the cursor
  H.eq(inline.get(buf).decisions, { "accept" }, "the first hunk is accepted")
  H.eq(vim.api.nvim_win_get_cursor(0)[1], 6, "on to the open hunk")
  H.eq(#answers, 0, "no answer before every hunk is decided")
  vim.api.nvim_feedkeys("\\r", "mx", false) -- <localleader>r: reject it

  H.wait(function()
    return #answers == 1
  end, "the permission answer")
  local expected = table.concat(before, "\n"):gsub("%(len%(values%) %- 1%)", "len(values)") .. "\n"
  H.eq(answers[1].response, {
    outcome = { outcome = "selected", optionId = "proceed_once" },
    _meta = { modifiedContent = expected },
  }, "one answer with the resulting text")
  H.eq(inline.get(buf), nil, "the review closed")
  H.eq(#vim.api.nvim_buf_get_extmarks(buf, inline.namespace, 0, -1, {}), 0, "extmarks cleared")
  H.eq(vim.fn.maparg("]h", "n", false, true).buffer, nil, "]h left the buffer")

  H.wait(function()
    return #done == 1
  end, "the end of the turn")
  H.contains(H.chat_text(), "total() stays as it was.")
  local after = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  H.eq(table.concat(after, "\n") .. "\n", expected, "the buffer")
  H.eq(vim.fn.readfile(path), after, "the file on disk")
  vim.cmd("normal! u")
  H.eq(vim.api.nvim_buf_get_lines(buf, 0, -1, false), before, "lines after one undo")
end
