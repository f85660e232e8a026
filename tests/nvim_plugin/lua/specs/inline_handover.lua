--- Spec: from the inline review, <localleader>d hands the edit to the diff tab, where the proposal is edited by
--- hand and accepted: the answer carries the hand-edited text. Then a second edit is rejected whole with
--- <localleader>R, which answers a plain reject.

local H = require("harness")

return function()
  H.setup()
  H.stub_select(H.pick("Review inline (hunk by hunk)"))
  local answers = H.record("AgentPermission")
  local done = H.record("AgentTurnDone")
  local inline = require("agent_lsp.inline")
  vim.cmd.edit(H.project .. "/stats.py")
  local buf = vim.api.nvim_get_current_buf()
  H.wait(function()
    return #vim.lsp.get_clients({ bufnr = buf, name = "agent-lsp" }) == 1
  end, "the file buffer to be attached")

  require("agent_lsp").prompt("fix mean() and total()")
  H.wait(function()
    return inline.get(buf) ~= nil
  end, "the inline review")
  vim.api.nvim_feedkeys("\\d", "mx", false) -- <localleader>d: the diff tab instead
  H.wait(function()
    return #vim.api.nvim_list_tabpages() == 2
  end, "the diff tab")
  H.eq(inline.get(buf), nil, "the inline review handed over")
  H.eq(#vim.api.nvim_buf_get_extmarks(buf, inline.namespace, 0, -1, {}), 0, "extmarks cleared")
  local proposal = vim.api.nvim_get_current_buf()
  local lines = vim.api.nvim_buf_get_lines(proposal, 0, -1, false)
  lines[2] = "    return sum(values) / max(len(values), 1)"
  vim.api.nvim_buf_set_lines(proposal, 0, -1, false, lines)
  vim.api.nvim_feedkeys("\\a", "mx", false)
  H.wait(function()
    return #answers == 1
  end, "the first answer")
  H.eq(answers[1].response._meta.modifiedContent, table.concat(lines, "\n") .. "\n", "the hand-edited text")
  H.wait(function()
    return #done == 1
  end, "the end of the first turn")
  H.eq(vim.api.nvim_buf_get_lines(buf, 0, -1, false), lines, "the buffer holds the hand-edited text")

  require("agent_lsp").prompt("shout it")
  H.wait(function()
    return inline.get(buf) ~= nil
  end, "the second inline review")
  vim.api.nvim_set_current_buf(buf)
  vim.api.nvim_feedkeys("\\R", "mx", false) -- <localleader>R: reject every open hunk
  H.wait(function()
    return #answers == 2
  end, "the second answer")
  H.eq(answers[2].response, { outcome = { outcome = "selected", optionId = "reject" } }, "a plain reject")
  H.wait(function()
    return #done == 2
  end, "the end of the second turn")
  H.eq(vim.api.nvim_buf_get_lines(buf, 0, -1, false), lines, "the rejected edit changed nothing")
  H.contains(H.chat_text(), "Left it alone.")
end
