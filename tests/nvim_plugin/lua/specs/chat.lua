--- Spec: open the chat, send a prompt, see the streamed answer, thoughts folded, tool lines and the plan.

local H = require("harness")

return function()
  H.setup()
  local done = H.record("AgentTurnDone")
  vim.cmd.edit(H.project .. "/main.py")
  vim.cmd("AgentChat")
  local view = require("agent_lsp.chat.view")
  local twin, pwin = view.windows()
  H.ok(twin and pwin, "the transcript and prompt windows")
  H.eq(vim.api.nvim_get_current_win(), pwin, "focused window")
  vim.cmd.stopinsert()
  H.wait(function()
    return require("agent_lsp.session").current ~= nil
  end, "a session")

  vim.api.nvim_buf_set_lines(view.prompt_buf(), 0, -1, false, { "what is in this project?" })
  view.submit()
  H.wait(function()
    return #done == 1
  end, "the end of the turn")
  H.eq(done[1].stopReason, "end_turn", "stop reason")
  local text = H.chat_text()
  H.contains(text, "## You\nwhat is in this project?")
  H.contains(text, "The project has one file.")
  H.contains(text, "✓ ") -- the list_directory tool line, completed
  H.contains(text, "┊ **Looking around**")
  H.contains(text, "- [x] Look around\n- [ ] Report")
  H.eq(vim.api.nvim_buf_get_lines(view.prompt_buf(), 0, -1, false), { "" }, "prompt cleared")
end
