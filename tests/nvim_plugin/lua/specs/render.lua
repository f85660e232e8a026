--- Spec (issues #38, #39): what the chat draws from the server's updates, fed as agent/update notifications to the
--- real plugin in a session of the real server: chunks grouped by messageId, a compaction as one item with its
--- summary folded under it, a subagent's own tool calls and messages nested under its parent call, a tool call as
--- one line heading its folded details, and the usage and cost in the winbar.

local H = require("harness")

local ORIGIN = { parentToolCallId = "p1", agent = "investigator", childSessionId = "c" }
local META = { ["agent-lsp"] = { subagent = ORIGIN } }

---@param words string
---@return table
local function text(words)
  return { type = "text", text = words }
end

---@param needle string
---@return integer
local function line_of(needle)
  local t = require("agent_lsp.chat.view").transcript()
  for i, line in ipairs(vim.api.nvim_buf_get_lines(t.buf, 0, -1, false)) do
    if line == needle then
      return i
    end
  end
  error(("%q is not a line of the chat:\n%s"):format(needle, H.chat_text()))
end

return function()
  H.setup()
  vim.cmd("AgentChat")
  vim.cmd.stopinsert()
  local session = require("agent_lsp.session")
  H.wait(function()
    return session.current ~= nil
  end, "a session")
  local s = session.current
  ---@param update table
  local function send(update)
    require("agent_lsp.updates").on_update({ sessionId = s.id, update = update }, s.client_id)
  end

  -- messageId: two agent messages in a row stay two; the chunks of one join.
  send({ sessionUpdate = "agent_message_chunk", content = text("First."), messageId = "m1" })
  send({ sessionUpdate = "agent_message_chunk", content = text("Second"), messageId = "m2" })
  send({ sessionUpdate = "agent_message_chunk", content = text(" part."), messageId = "m2" })
  H.contains(H.chat_text(), "First.\n\nSecond part.", "two messages, the second in two chunks")

  -- A replayed message that was sent into a running turn shows as one, without a header of its own.
  local steered = { ["agent-lsp"] = { steered = true } }
  send({ sessionUpdate = "user_message_chunk", content = text("also say "), messageId = "u9", _meta = steered })
  send({ sessionUpdate = "user_message_chunk", content = text("bye"), messageId = "u9", _meta = steered })
  H.contains(H.chat_text(), "Second part.\n\n## You (into the running turn)\nalso say bye\n\n", "a steered message")

  -- A compaction: one item that goes from in progress to completed, its summary folded under it.
  send({ sessionUpdate = "compaction_update", compactionId = "k1", status = "in_progress" })
  H.ok(line_of("◐ Compacting the conversation…") > 0, "in progress")
  send({
    sessionUpdate = "compaction_update",
    compactionId = "k1",
    status = "completed",
    summary = { text("We fixed stats.py.\nNext: the tests.") },
    _meta = { ["agent-lsp"] = { tokensBefore = 6089, tokensAfter = 951 } },
  })
  local compacted = line_of("⇊ Conversation compacted: 6089 → 951 tokens")
  H.ok(not H.chat_text():find("Compacting", 1, true), "one item, updated in place")
  H.eq(line_of("  │ We fixed stats.py."), compacted + 1, "the summary under it")
  local twin = require("agent_lsp.chat.view").windows()
  vim.api.nvim_win_call(assert(twin), function()
    H.eq(vim.fn.foldclosed(compacted), compacted, "a closed fold headed by the compaction's line")
    H.eq(vim.fn.foldclosedend(compacted), compacted + 2, "holding its summary")
  end)
  send({ sessionUpdate = "compaction_update", compactionId = "k2", status = "failed", error = "the model refused" })
  H.ok(line_of("✗ Compaction failed: the model refused") > 0, "a failed one says why")

  -- A subagent's own updates nest under its parent call.
  local title = "Delegating to agent 'investigator'"
  send({ sessionUpdate = "tool_call", toolCallId = "p1", title = title, status = "in_progress" })
  local read = { { path = H.project .. "/main.py" } }
  local child = { sessionUpdate = "tool_call", toolCallId = "c1", kind = "read", title = "main.py", locations = read }
  send(vim.tbl_extend("force", child, { _meta = META }))
  send({ sessionUpdate = "tool_call_update", toolCallId = "c1", status = "completed", _meta = META })
  send({ sessionUpdate = "agent_message_chunk", content = text("Found "), messageId = "cm", _meta = META })
  send({ sessionUpdate = "agent_message_chunk", content = text("it."), messageId = "cm", _meta = META })
  send({ sessionUpdate = "usage_update", used = 999999, size = 1000000, _meta = META })
  send({ sessionUpdate = "session_info_update", title = "the child's title", _meta = META })
  H.ok(s.usage == nil and s.title == nil, "a subagent's usage and title are not the session's")
  local parent = line_of("◐ Delegating to agent 'investigator' · running")
  H.eq(line_of("  ┆ ✓ Read main.py · done"), parent + 1, "its tool call, one step line, updated in place")
  H.eq(line_of("  ┆ Found it."), parent + 2, "its message, one step line")
  local failed = { sessionUpdate = "tool_call", toolCallId = "c2", kind = "read", title = "gone.py", _meta = META }
  send(vim.tbl_extend("force", failed, { locations = { { path = H.project .. "/gone.py" } } }))
  local why = { { type = "content", content = text("File not found: gone.py") } }
  send({ sessionUpdate = "tool_call_update", toolCallId = "c2", status = "failed", content = why, _meta = META })
  H.eq(line_of("  ┆ ✗ Read gone.py · failed: File not found: gone.py"), parent + 3, "a failed one says why")
  H.ok(not H.chat_text():find("\nFound it.", 1, true), "not a message of the main chat")

  -- A tool call: one line (icon, verb, target, +/−, state), its diff folded under it.
  send({
    sessionUpdate = "tool_call",
    toolCallId = "e1",
    kind = "edit",
    title = "Edit stats.py",
    status = "completed",
    locations = { { path = H.project .. "/stats.py" } },
    content = { { type = "diff", path = H.project .. "/stats.py", oldText = "a\nb\n", newText = "a\nc\nd\n" } },
  })
  local edit = line_of("✓ Edit stats.py +2 −1 · done")
  vim.api.nvim_win_call(twin, function()
    H.eq(vim.fn.foldclosed(edit), edit, "the diff folded under the line")
    H.contains(vim.fn.foldtextresult(edit), "✓ Edit stats.py +2 −1 · done ▸ ")
  end)

  -- Usage and cost in the winbar; a compaction brings the usage down to what the context holds after it.
  send({ sessionUpdate = "usage_update", used = 1234, size = 10000, cost = { amount = 0.0012, currency = "USD" } })
  local function drawn()
    local winbar = require("agent_lsp.chat.view").winbar()
    return vim.api.nvim_eval_statusline(winbar, { winid = twin, use_winbar = true }).str
  end
  H.contains(drawn(), "1,234 tokens (88% left) · ≈ $0.0012", "the winbar as drawn")
  send({
    sessionUpdate = "compaction_update",
    compactionId = "k3",
    status = "completed",
    summary = {},
    _meta = { ["agent-lsp"] = { tokensBefore = 1234, tokensAfter = 300 } },
  })
  H.contains(drawn(), "300 tokens (97% left) · ≈ $0.0012", "the usage after the compaction")

  -- Steering needs the server to list agent/steer; this one is asked about, not guessed.
  local caps = vim.lsp.get_client_by_id(s.client_id).server_capabilities
  local listed = vim.tbl_get(caps, "experimental", "agent", "requests") or {}
  H.eq(require("agent_lsp.turns").can_steer(s), vim.tbl_contains(listed, "agent/steer"), "steering follows the server")
end
