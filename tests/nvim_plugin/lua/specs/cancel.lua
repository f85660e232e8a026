--- Spec: :AgentCancel right after the first streamed chunk stops the turn; the rest never arrives.

local H = require("harness")

return function()
  H.setup()
  local done = H.record("AgentTurnDone")
  local chunks = 0
  vim.api.nvim_create_autocmd("User", {
    pattern = "AgentUpdate",
    callback = function(ev)
      if ev.data.update.sessionUpdate == "agent_message_chunk" then
        chunks = chunks + 1
      end
    end,
  })
  vim.cmd("AgentChat")
  vim.cmd.stopinsert()
  vim.cmd("AgentPrompt tell me a long story")
  H.wait(function()
    return chunks > 0
  end, "the first chunk")
  vim.cmd("AgentCancel")
  H.wait(function()
    return #done == 1
  end, "the end of the turn")
  H.eq(done[1].stopReason, "cancelled", "stop reason")
  local total = tonumber(os.getenv("AGENT_NVIM_CHUNKS"))
  H.ok(chunks < total, ("fewer than %d chunks (got %d)"):format(total, chunks))
  local text = H.chat_text()
  H.contains(text, "word0 ")
  H.ok(not text:find("word" .. (total - 1), 1, true), "no last word in the chat")
  H.contains(text, "_Cancelled._")
  H.eq(require("agent_lsp.session").current.request, nil, "no running request")
  io.stdout:write(("chunks before the cancel took: %d of %d\n"):format(chunks, total))
end
