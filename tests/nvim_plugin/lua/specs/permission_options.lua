--- Spec: every option the server offers is a choice, by its own name, and the chosen one's optionId is the
--- answer (the "all future sessions" and per-MCP-server ones included); a review's Accept / Reject pick by kind,
--- allow_once first. No server: the options are the ones agent_lsp/vocabulary.py offers an MCP call.

local H = require("harness")

local OPTIONS = {
  { optionId = "proceed_once", name = "Allow once", kind = "allow_once" },
  { optionId = "proceed_always", name = "Always allow `search` this session", kind = "allow_always" },
  {
    optionId = "proceed_always_server",
    name = "Always allow every tool of `docs` this session",
    kind = "allow_always",
  },
  { optionId = "proceed_always_and_save", name = "Allow this tool in all future sessions", kind = "allow_always" },
  { optionId = "reject", name = "Reject", kind = "reject_once" },
}

---Ask the plugin with `options` and pick `label`; the response it sends back.
---@param options table[]
---@param label string
---@return table response, string[] labels
local function answer(options, label)
  local questions = H.stub_select(H.pick(label))
  local response
  require("agent_lsp.permission").ask({
    sessionId = "s1",
    toolCall = { toolCallId = "call-1", title = "search (docs MCP server)", kind = "other" },
    options = options,
  }, function(r)
    response = r
  end)
  H.wait(function()
    return response ~= nil
  end, "the answer")
  return response, questions[1].labels
end

return function()
  local permission = require("agent_lsp.permission")
  local response, labels = answer(OPTIONS, "Allow this tool in all future sessions")
  H.eq(labels, vim.tbl_map(function(o)
    return o.name
  end, OPTIONS), "every option, in the server's order and words")
  H.eq(response, { outcome = { outcome = "selected", optionId = "proceed_always_and_save" } }, "saved")
  response = answer(OPTIONS, "Always allow every tool of `docs` this session")
  H.eq(response.outcome.optionId, "proceed_always_server", "per server")

  -- An option the plugin has never heard of is offered and answered like any other.
  local novel = vim.deepcopy(OPTIONS)
  novel[#novel + 1] = { optionId = "x_new", name = "Something new", kind = "allow_always" }
  response = answer(novel, "Something new")
  H.eq(response.outcome.optionId, "x_new", "a new option")

  -- The diff reviews answer by kind: allow_once before allow_always, whatever the order offered.
  local shuffled = { OPTIONS[4], OPTIONS[2], OPTIONS[5], OPTIONS[1] }
  H.eq(permission.option_of_kind(shuffled, { "allow_once", "allow_always" }).optionId, "proceed_once", "accept")
  H.eq(permission.option_of_kind(shuffled, { "reject_once", "reject_always" }).optionId, "reject", "reject")
end
