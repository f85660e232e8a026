--- Spec: "Allow this command in all future sessions" (offered because the user's settings.json has
--- security.enablePermanentToolApproval) is answered with its own optionId; the server saves the rule in
--- ~/.gemini/policies/auto-saved.toml, and after a server restart (a new session in a new process) the same
--- command runs without a question.

local H = require("harness")

---@param label string
---@return boolean
local function saves(label)
  return label:find("in all future sessions", 1, true) ~= nil
end

return function()
  H.setup()
  local done = H.record("AgentTurnDone")
  local answers = H.record("AgentPermission")
  local session = require("agent_lsp.session")
  local questions = H.stub_select(function(items, opts)
    for _, item in ipairs(items) do
      if saves(opts.format_item(item)) then
        return item
      end
    end
    error("no 'all future sessions' choice among the options")
  end)

  require("agent_lsp").prompt("say it")
  H.wait(function()
    return #done == 1
  end, "the first turn")
  H.eq(#questions, 1, "one question")
  H.eq(#vim.tbl_filter(saves, questions[1].labels), 1, "the save option offered once")
  H.eq(questions[1].labels[#questions[1].labels], "Reject", "Reject last, as the server orders them")
  H.eq(answers[1].response, { outcome = { outcome = "selected", optionId = "proceed_always_and_save" } }, "answer")
  H.contains(H.chat_text(), "Ran it.")

  local saved = vim.fs.joinpath(assert(os.getenv("HOME")), ".gemini", "policies", "auto-saved.toml")
  H.ok(vim.uv.fs_stat(saved), saved .. " written")
  local rule = table.concat(vim.fn.readfile(saved), "\n")
  H.contains(rule, 'toolName = "run_shell_command"')
  H.contains(rule, 'commandPrefix = "echo"')
  H.contains(rule, 'decision = "allow"')

  -- A new server process: nothing is remembered in memory, only the saved rule.
  local first = session.current
  local old = assert(vim.lsp.get_client_by_id(first.client_id))
  old:stop()
  H.wait(function()
    return old:is_stopped()
  end, "the first server to stop")
  require("agent_lsp").prompt("say it again")
  H.wait(function()
    return #done == 2
  end, "the second turn")
  H.ok(session.current.id ~= first.id and session.current.client_id ~= first.client_id, "a new session and server")
  H.eq(done[2].stopReason, "end_turn", "second stop reason")
  H.eq(#questions, 1, "no question for the saved command")
  H.contains(H.chat_text(), "Ran it.")
  H.contains(H.chat_text(), "✓ ")
end
