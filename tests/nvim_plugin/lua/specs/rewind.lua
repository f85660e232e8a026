--- Spec: two prompts write files; the rewind keymap on the second message in the chat shows what will be restored,
--- then restores the disk and the open buffer, cuts the chat and puts the message back in the prompt buffer;
--- :AgentRewind undo puts it all back; the edit keymap rewinds again and the edited message is sent (the test then
--- reads the fake Gemini server's requests: the cut turn is gone from the history); the fork keymap opens a new
--- session with the conversation before the message and the message in the prompt; in that fork, whose chat came
--- from the server's replay with each message's id, the rewind, its undo and a fork name the message by its id.
--- Messages typed here get their ids from the server's rewind listing after each turn: they go by id too.

local H = require("harness")

---@param text string
---@return integer line The chat line of the user message `text` (0: not there)
local function line_of(text)
  local t = require("agent_lsp.chat.view").transcript()
  for i, line in ipairs(vim.api.nvim_buf_get_lines(t.buf, 0, -1, false)) do
    if line == text then
      return i
    end
  end
  return 0
end

---Press `keys` (after <localleader>, which is \) on the user message `text` in the chat window.
---@param text string
---@param keys string
local function on_message(text, keys)
  local t = require("agent_lsp.chat.view").transcript()
  local win = vim.fn.bufwinid(t.buf)
  vim.api.nvim_set_current_win(win)
  local line = line_of(text)
  H.ok(line > 0, text .. " is in the chat")
  vim.api.nvim_win_set_cursor(win, { line, 0 })
  vim.api.nvim_feedkeys(vim.keycode("\\" .. keys), "mx", false)
end

return function()
  H.setup_endpoint({ approval_mode = "auto_edit" })
  local done = H.record("AgentTurnDone")
  local rewound = H.record("AgentRewind")
  local forked = H.record("AgentFork")
  local one = H.project .. "/one.txt"
  -- The params of each rewind and fork that names a message (the listing, {sessionId} alone, is left out).
  local sent = {} ---@type table[]
  local client_mod = require("agent_lsp.client")
  local request = client_mod.request
  client_mod.request = function(c, method, params, ...)
    if (method == "agent/rewind" or method == "agent/fork") and (params.messageId or params.messageIndex) then
      sent[#sent + 1] = vim.deepcopy(params)
    end
    return request(c, method, params, ...)
  end
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
  vim.cmd("AgentChat")
  local view = require("agent_lsp.chat.view")
  local prompt = view.prompt_buf()
  -- The messages typed here get the ids the server gave them (its rewind listing, read after each turn).
  H.wait(function()
    return view.transcript():user_block(2).message_id ~= nil
  end, "the typed message's id")
  local two_id = view.transcript():user_block(2).message_id

  -- Rewind (\u): the question lists what will happen; the files, the buffer, the chat and the prompt follow.
  local questions = H.stub_select(H.pick("Rewind"))
  on_message("write two", "u")
  H.wait(function()
    return #rewound == 1
  end, "the rewind")
  H.contains(questions[1].prompt, "Rewind to before message 1?")
  H.eq(sent, {
    { sessionId = sent[1].sessionId, messageId = two_id, dryRun = true },
    { sessionId = sent[1].sessionId, messageId = two_id },
  }, "the dry run and the rewind name the message by its id")
  H.contains(questions[1].prompt, "Remove (the agent created them):\n  two.txt")
  H.eq(vim.uv.fs_stat(H.project .. "/two.txt"), nil, "two.txt removed")
  H.eq(vim.fn.readfile(one), { "agent one" }, "one.txt (before the message) kept")
  H.eq(vim.api.nvim_buf_get_lines(one_buf, 0, -1, false), { "agent one" }, "its buffer")
  H.eq(vim.api.nvim_buf_get_lines(prompt, 0, -1, false), { "write two" }, "the message back in the prompt")
  local text = H.chat_text()
  H.contains(text, "write one")
  H.ok(not text:find("write two", 1, true), "the chat is cut at the message")

  -- :AgentRewind undo puts the files and the chat back.
  vim.cmd("AgentRewind undo")
  H.wait(function()
    return #rewound == 2
  end, "the undo")
  H.eq(vim.fn.readfile(H.project .. "/two.txt"), { "agent two" }, "two.txt back")
  H.ok(line_of("write two") > 0, "the message back in the chat")

  -- Edit (\e): rewinds again (a draft in the prompt is replaced by the message), the edited text is sent.
  vim.api.nvim_buf_set_lines(prompt, 0, -1, false, { "a draft" })
  questions = H.stub_select(H.pick("Rewind and edit"))
  on_message("write two", "e")
  H.wait(function()
    return #rewound == 3
  end, "the rewind to edit")
  H.contains(questions[1].prompt, "Edit message 1: rewind to before it?")
  H.eq(vim.api.nvim_buf_get_lines(prompt, 0, -1, false), { "write two" }, "the message in the prompt to edit")
  H.eq(vim.api.nvim_get_current_buf(), prompt, "the cursor in the prompt")
  H.eq(vim.uv.fs_stat(H.project .. "/two.txt"), nil, "two.txt removed again")
  vim.api.nvim_buf_set_lines(prompt, 0, -1, false, { "write three" })
  view.submit()
  H.wait(function()
    return #done == 3
  end, "the edited message's turn")
  H.contains(H.chat_text(), "Wrote three.")

  -- Fork (\f) from the edited message: a new session with the conversation before it, the message in the prompt.
  local source = require("agent_lsp.session").current.id
  on_message("write three", "f")
  H.wait(function()
    return #forked == 1
  end, "the fork")
  local s = require("agent_lsp.session").current
  H.ok(s.id ~= source and s.id == forked[1].sessionId, "the fork is the current session")
  H.eq(forked[1].messageText, "write three", "the fork's answer names the message")
  H.eq(vim.api.nvim_buf_get_lines(prompt, 0, -1, false), { "write three" }, "the message in the fork's prompt")
  text = H.chat_text()
  H.contains(text, "write one")
  H.ok(not text:find("write three", 1, true), "the fork's chat ends before the message")

  -- The fork's chat is the server's replay, whose user_message_chunk carries each message's id: a rewind and a
  -- fork from it name the message by that id (the index is only the fallback for a message the chat has no id for).
  local id = view.transcript():user_block(1).message_id
  H.ok(type(id) == "string" and id ~= "", "the replayed message's id")
  sent = {}
  questions = H.stub_select(H.pick("Rewind"))
  on_message("write one", "u")
  H.wait(function()
    return #rewound == 4
  end, "the rewind by id")
  H.eq(#sent, 2, "the dry run and the rewind")
  for _, params in ipairs(sent) do
    H.eq({ params.messageId, params.messageIndex }, { id }, "named by its id alone")
  end
  H.eq(rewound[4].messageId, id, "the server rewound that message")
  H.eq(rewound[4].messageIndex, 0, "its index")
  H.contains(questions[1].prompt, "Rewind to before message 0?\nRestore:\n  one.txt")
  H.eq(vim.fn.readfile(one), { "mine one" }, "one.txt as before the agent")
  H.eq(vim.api.nvim_buf_get_lines(one_buf, 0, -1, false), { "mine one" }, "its buffer follows")
  H.ok(not H.chat_text():find("write one", 1, true), "the chat cut at the message")
  vim.cmd("AgentRewind undo")
  H.wait(function()
    return #rewound == 5
  end, "the undo")
  H.eq(view.transcript():user_block(1).message_id, id, "the message back, with its id")
  H.eq(vim.fn.readfile(one), { "agent one" }, "one.txt back")

  sent = {}
  local fork_source = require("agent_lsp.session").current.id
  on_message("write one", "f")
  H.wait(function()
    return #forked == 2
  end, "the fork by id")
  H.eq(sent, { { sessionId = fork_source, cwd = sent[1].cwd, messageId = id } }, "the fork named the message by id")
  H.eq({ forked[2].messageId, forked[2].messageIndex, forked[2].messageText }, { id, 0, "write one" }, "fork answer")
  H.eq(vim.trim(H.chat_text()), "", "the new fork holds the conversation before it: nothing")
  H.eq(vim.api.nvim_buf_get_lines(prompt, 0, -1, false), { "write one" }, "the message in the prompt")
  client_mod.request = request
end
