--- Spec: :AgentCancel right after the first streamed chunk ends the turn; nothing after it arrives.
---
--- The stream is followed by a slow shell command in the same turn, so however fast the replay streams,
--- the cancel always lands before the turn could end by itself.

local H = require("harness")

return function()
  H.setup({ approval_mode = "yolo" })
  local done = H.record("AgentTurnDone")
  local chunks = 0
  vim.api.nvim_create_autocmd("User", {
    pattern = "AgentUpdate",
    callback = function(ev)
      if ev.data.update.sessionUpdate == "agent_message_chunk" then
        chunks = chunks + 1
        if chunks == 1 then
          vim.cmd("AgentCancel")
        end
      end
    end,
  })
  vim.cmd("AgentChat")
  vim.cmd.stopinsert()
  local started = vim.uv.hrtime()
  vim.cmd("AgentPrompt tell me a long story")
  H.wait(function()
    return #done == 1
  end, "the end of the turn")
  local seconds = (vim.uv.hrtime() - started) / 1e9
  H.eq(done[1].stopReason, "cancelled", "stop reason")
  H.ok(seconds < 15, ("the turn ended well before the shell's sleep would have (%.1fs)"):format(seconds))
  local text = H.chat_text()
  H.contains(text, "word0 ")
  H.ok(not text:find("AFTER THE TOOL", 1, true), "nothing after the cancel in the chat")
  H.contains(text, "_Cancelled._")
  H.eq(require("agent_lsp.session").current.request, nil, "no running request")
  io.stdout:write(("chunks before the cancel took: %d of %s\n"):format(chunks, os.getenv("AGENT_NVIM_CHUNKS")))
end
