--- Spec: an MCP server's prompts are completed in the chat prompt and run; its resources complete after @ (a
--- template's value by the server's completion/complete); :AgentMcp lists the servers and restarts one.

local H = require("harness")

return function()
  H.setup()
  local done = H.record("AgentTurnDone")
  vim.cmd("AgentChat")
  local view = require("agent_lsp.chat.view")
  -- The prompts arrive once server-everything has connected (agent/update available_commands_update).
  H.wait_for_command("args-prompt", "the server's prompts among the session's commands", 60000)

  local items = require("agent_lsp.chat.complete").items("/args")
  H.eq(#items, 1, "completions for /args")
  H.eq(items[1].word, "/args-prompt", "completed word")
  H.eq(items[1].menu, "A prompt with two arguments, one required and one optional", "completion description")

  local complete = require("agent_lsp.chat.complete")
  local words = function(base)
    return vim.tbl_map(function(item)
      return item.word
    end, complete.file_items(base))
  end
  H.eq(words("@architecture"), { "@everything:demo://resource/static/document/architecture.md" }, "a resource")
  local dynamic = "@everything:demo://resource/dynamic/text/"
  H.eq(words(dynamic), { dynamic }, "a template offers its fixed part")
  H.eq(words(dynamic .. "4"), { dynamic .. "4" }, "the server completes its value")

  local buf = view.prompt_buf()
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "/args-prompt --city=Lyon" })
  view.submit()
  H.wait(function()
    return #done == 1
  end, "the prompt command's turn")
  H.eq(done[1].stopReason, "end_turn", "stop reason")
  H.contains(H.chat_text(), "Sunny in Lyon.")

  vim.cmd("AgentMcp")
  H.wait(function()
    return #done == 2
  end, "the /mcp turn")
  H.contains(H.chat_text(), "everything")
  H.contains(H.chat_text(), "mcp_everything_echo")

  -- Restart from Neovim: the arguments go to /mcp as typed.
  vim.cmd("AgentMcp refresh everything")
  H.wait(function()
    return #done == 3
  end, "the /mcp refresh turn")
  vim.cmd("AgentMcp refresh nosuch")
  H.wait(function()
    return #done == 4
  end, "the /mcp refresh of an unknown server")
  H.contains(H.chat_text(), "No MCP server is named nosuch.")
end
