--- Spec: a custom .toml command is offered by the chat prompt's completion (<C-x><C-o>) and runs as a prompt.

local H = require("harness")

return function()
  H.setup()
  local done = H.record("AgentTurnDone")
  vim.cmd("AgentChat")
  local view = require("agent_lsp.chat.view")
  -- The session's answer lists the built-in commands; its custom ones follow once it is built.
  H.wait_for_command("git:commit", "a session with its custom command")

  local complete = require("agent_lsp.chat.complete")
  local items = complete.items("/git")
  H.eq(#items, 1, "completions for /git")
  H.eq(items[1].word, "/git:commit", "completed word")
  H.eq(items[1].menu, "Write a commit message", "completion description")

  -- The real thing: <C-x><C-o> in the prompt buffer completes the custom command's name (the only match).
  local buf = view.prompt_buf()
  vim.api.nvim_set_current_win(select(2, view.windows()))
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, {})
  vim.api.nvim_feedkeys(vim.keycode("i/git:c<C-x><C-o><Esc>"), "tx", false)
  H.eq(vim.api.nvim_buf_get_lines(buf, 0, -1, false), { "/git:commit" }, "the completed prompt")
  vim.api.nvim_feedkeys(vim.keycode("A tidy the parser<Esc>"), "tx", false)
  H.eq(vim.api.nvim_buf_get_lines(buf, 0, -1, false), { "/git:commit tidy the parser" }, "the prompt")

  view.submit()
  H.wait(function()
    return #done == 1
  end, "the custom command's turn")
  H.eq(done[1].stopReason, "end_turn", "stop reason")
  H.contains(H.chat_text(), "Committed: the custom command ran.")
end
