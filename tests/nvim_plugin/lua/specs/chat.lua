--- Spec: open the chat, send a prompt, see the streamed answer, thoughts folded, tool lines and the plan.

local H = require("harness")

return function()
  H.setup()
  local done = H.record("AgentTurnDone")
  local progress = {} ---@type string[]
  vim.api.nvim_create_autocmd("LspProgress", {
    callback = function(ev)
      local client = vim.lsp.get_client_by_id(ev.data.client_id)
      if client and client.name == "agent-lsp" then
        progress[#progress + 1] = ev.data.params.value.kind .. ":" .. (ev.data.params.value.message or "")
      end
    end,
  })
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
  vim.api.nvim_feedkeys(vim.keycode("<CR>"), "mx", false) -- the prompt buffer's submit keymap
  H.wait(function()
    return require("agent_lsp").statusline():find("^Agent: ") ~= nil or #done == 1
  end, "a statusline while the turn runs")
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

  -- Thoughts are folded (closed) in the transcript window; the answer is not.
  local lines = vim.api.nvim_buf_get_lines(view.transcript().buf, 0, -1, false)
  local thought, answer
  for i, line in ipairs(lines) do
    thought = thought or (line:find("Looking around", 1, true) and i)
    answer = answer or (line:find("The project has one file.", 1, true) and i)
  end
  vim.api.nvim_win_call(twin, function()
    H.ok(vim.fn.foldclosed(thought) ~= -1, "a closed fold over the thought")
    H.eq(vim.fn.foldclosed(answer), -1, "the answer's fold state")
  end)

  -- A subagent is one tool line; its steps (and its report) are under it, in a closed fold headed by that line.
  local call, first_step, last_step, last_line
  for i, line in ipairs(lines) do
    call = call or (line:find("Delegating to agent 'codebase_investigator'", 1, true) and i)
    if call and line:find("^  ┆ ") then
      first_step, last_step = first_step or i, i
    end
    if call and not last_line and (line:find("^  ┆ ") or line:find("^  │ ")) then
      last_line = nil
    elseif call and not last_line and i > call and line == "" then
      last_line = i - 1
    end
  end
  H.ok(call and first_step == call + 1, "the subagent's steps right under its call")
  H.eq(lines[first_step], "  ┆ 💭 Reading main", "its first step")
  -- Its read_file: nested under the call (the plugin advertises experimental.agent.subagents, so the child's own
  -- tool calls come marked with _meta["agent-lsp"].subagent), worded as the session's own tool lines.
  H.eq(lines[first_step + 1], "  ┆ ✓ Read main.py · done", "its read_file, a step")
  H.eq(last_step, first_step + 1, "its last step")
  H.eq(#vim.tbl_filter(function(l)
    return l:find("read_file", 1, true) ~= nil or l:find("Read main.py", 1, true) ~= nil
  end, lines), 1, "its read_file is a step, not a tool line of the chat")
  vim.api.nvim_win_call(twin, function()
    H.eq(vim.fn.foldclosed(call), call, "the call's line heads a closed fold")
    H.eq(vim.fn.foldclosedend(call), last_line, "the fold ends with the call's details")
    H.contains(vim.fn.foldtextresult(call), "Delegating to agent 'codebase_investigator' · done ▸ ")
    H.contains(vim.fn.foldtextresult(call), " steps, ")
    vim.api.nvim_win_set_cursor(twin, { call, 0 })
    vim.cmd("normal! zo")
    H.eq(vim.fn.foldclosed(first_step), -1, "zo opens the steps")
  end)

  -- Every other tool call is one line too: icon, verb, target, state; its output folded under it.
  local listed
  for i, line in ipairs(lines) do
    listed = listed or (line:find("^✓ .* · done$") and lines[i + 1]:find("^  │ ") and i)
  end
  H.ok(listed, "a tool line with its details under it")
  vim.api.nvim_win_call(twin, function()
    H.eq(vim.fn.foldclosed(listed), listed, "the tool's details are folded under its line")
  end)

  -- $/progress reached Neovim's LspProgress (what fidget.nvim and statuslines read).
  H.eq(progress[1], "begin:Working on: what is in this project?", "first progress")
  H.ok(vim.tbl_contains(progress, "report:Thinking: Looking around"), "a progress report from the thought")
  H.eq(progress[#progress], "end:Done: The project has one file.", "last progress")
  H.eq(require("agent_lsp").statusline(), "", "statusline when idle")

  -- :AgentTasks shows the background processes (none here) in the chat, without asking the model.
  vim.cmd("AgentTasks")
  H.wait(function()
    return #done == 2
  end, "the /tasks turn")
  H.contains(H.chat_text(), "No background processes.")

  -- A subagent's edit asks the session's question, which says whose call it is; the edit is one of its steps.
  local questions = H.stub_select(H.pick("Allow once"))
  require("agent_lsp").prompt("write notes")
  H.wait(function()
    return #done == 3
  end, "the generalist's turn")
  H.eq(#questions, 1, "one permission question")
  H.contains(questions[1].prompt, "Subagent 'generalist' wants to: ")
  H.eq(vim.fn.readfile(H.project .. "/notes.txt"), { "notes" }, "the subagent's file")
  local function nested()
    return vim.tbl_filter(function(line)
      return line:find("Delegating to agent", 1, true) ~= nil or line:find("^  ┆ ") ~= nil
    end, vim.api.nvim_buf_get_lines(view.transcript().buf, 0, -1, false))
  end
  local live = nested()
  H.eq(live, {
    "✓ Delegating to agent 'codebase_investigator' · done",
    "  ┆ 💭 Reading main",
    "  ┆ ✓ Read main.py · done",
    "✓ Delegating to agent 'generalist' · done",
    "  ┆ ✓ Edit notes.txt +1 −0 · done",
  }, "each subagent's steps under its call")

  -- Loaded again, the session's replay nests them the same way.
  local session = require("agent_lsp.session")
  local id = session.current.id
  local loaded = H.record("AgentSession")
  session.load(id)
  H.wait(function()
    return #loaded == 1
  end, "the session loaded")
  H.eq(nested(), live, "the replayed subagent runs, nested")
end
