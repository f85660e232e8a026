--- Spec: two prompts write files; the rewind keymap on the second message in the chat shows what will be restored,
--- then restores the disk and the open buffer, cuts the chat and puts the message back in the prompt buffer.

local H = require("harness")

return function()
  H.setup({ approval_mode = "auto_edit" })
  local done = H.record("AgentTurnDone")
  local rewound = H.record("AgentRewind")
  local one = H.project .. "/one.txt"
  require("agent_lsp").prompt("write one")
  H.wait(function()
    return #done == 1
  end, "the first turn")
  require("agent_lsp").prompt("write two")
  H.wait(function()
    return #done == 2
  end, "the second turn")
  H.eq(vim.fn.readfile(H.project .. "/two.txt"), { "agent two" }, "two.txt written")
  vim.cmd.edit(one)
  H.eq(vim.api.nvim_buf_get_lines(0, 0, -1, false), { "agent one" }, "one.txt's buffer")
  local one_buf = vim.api.nvim_get_current_buf()

  local questions = H.stub_select(H.pick("Rewind"))
  local t = require("agent_lsp.chat.view").transcript()
  vim.cmd("AgentChat")
  local win = vim.fn.bufwinid(t.buf)
  vim.api.nvim_set_current_win(win)
  local lines = vim.api.nvim_buf_get_lines(t.buf, 0, -1, false)
  local second = 0
  for i, line in ipairs(lines) do
    if line == "write two" then
      second = i
    end
  end
  H.ok(second > 0, "the second message is in the chat")
  vim.api.nvim_win_set_cursor(win, { second, 0 })
  vim.api.nvim_feedkeys(vim.keycode("\\u"), "mx", false) -- <localleader>u
  H.wait(function()
    return #rewound == 1
  end, "the rewind")
  H.contains(questions[1].prompt, "Rewind to before message 1?")
  H.contains(questions[1].prompt, "Remove (the agent created them):\n  two.txt")
  H.eq(vim.uv.fs_stat(H.project .. "/two.txt"), nil, "two.txt removed")
  H.eq(vim.fn.readfile(one), { "agent one" }, "one.txt (before the message) kept")
  H.eq(vim.api.nvim_buf_get_lines(one_buf, 0, -1, false), { "agent one" }, "its buffer")
  local prompt = require("agent_lsp.chat.view").prompt_buf()
  H.eq(vim.api.nvim_buf_get_lines(prompt, 0, -1, false), { "write two" }, "the message back in the prompt")
  local text = H.chat_text()
  H.contains(text, "write one")
  H.ok(not text:find("write two", 1, true), "the chat is cut at the message")
end
