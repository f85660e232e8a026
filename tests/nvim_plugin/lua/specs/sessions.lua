--- Spec: :AgentNew clears the chat; :AgentSessions picks a saved session and replays it into the chat.

local H = require("harness")

return function()
  H.setup()
  local done = H.record("AgentTurnDone")
  local sessions = H.record("AgentSession")
  local session = require("agent_lsp.session")
  require("agent_lsp").prompt("hello there")
  H.wait(function()
    return #done == 1
  end, "the first turn")
  local first = session.current.id
  H.contains(H.chat_text(), "Hello back.")

  vim.cmd("AgentNew")
  H.wait(function()
    return session.current.id ~= first
  end, "a new session")
  H.eq(vim.trim(H.chat_text()), "", "chat after :AgentNew")

  local questions = H.stub_select(function(items, opts)
    for _, item in ipairs(items) do
      if item.sessionId == first then
        H.contains(opts.format_item(item), "hello there")
        return item
      end
    end
    error("the first session is not listed")
  end)
  vim.cmd("AgentSessions")
  H.wait(function()
    return #sessions == 3
  end, "the loaded session")
  H.eq(sessions[3], { sessionId = first, loaded = true }, "loaded session event")
  H.eq(questions[1].prompt, "Load agent session", "question")
  H.eq(session.current.id, first, "current session")
  local text = H.chat_text()
  H.contains(text, "## You\nhello there")
  H.contains(text, "Hello back.")
end
