--- :Agent* user commands; everything else loads on first use.

if vim.g.loaded_agent_lsp then
  return
end
vim.g.loaded_agent_lsp = true

---@param name string
---@param fn fun(opts: vim.api.keyset.create_user_command.command_args)
---@param opts vim.api.keyset.user_command
local function command(name, fn, opts)
  vim.api.nvim_create_user_command(name, fn, opts)
end

command("AgentChat", function()
  require("agent_lsp").chat()
end, { desc = "Open the agent chat" })

command("AgentPrompt", function(o)
  require("agent_lsp").prompt(o.args)
end, { nargs = "+", desc = "Send a prompt to the agent" })

command("AgentRewind", function(o)
  local rewind = require("agent_lsp.rewind")
  if o.fargs[1] == "undo" then
    return rewind.undo()
  elseif o.fargs[1] == "revert" then
    return rewind.revert(o.fargs[2] and tonumber(o.fargs[2]) or nil)
  end
  rewind.rewind(o.args ~= "" and tonumber(o.args) or nil)
end, {
  nargs = "*",
  desc = "Go back to before one of your messages (files and conversation); `undo` puts it back; `revert [N]` undoes"
    .. " one turn's file changes only",
})

command("AgentSteer", function(o)
  require("agent_lsp.turns").prompt(o.args)
end, { nargs = "+", desc = "Send a message into the running turn (steer it); with no turn running, a prompt" })

command("AgentFork", function(o)
  require("agent_lsp.rewind").fork(o.args ~= "" and tonumber(o.args) or nil)
end, { nargs = "?", desc = "A new session with the conversation before one of your messages" })

command("AgentCancel", function()
  require("agent_lsp").cancel()
end, { desc = "Cancel the agent's running turn" })

command("AgentNew", function()
  require("agent_lsp").new_session()
end, { desc = "Start a new agent session" })

command("AgentSessions", function()
  require("agent_lsp").sessions()
end, { desc = "Load a saved agent session" })

command("AgentMode", function(o)
  require("agent_lsp").set_mode(o.args ~= "" and o.args or nil)
end, {
  nargs = "?",
  complete = function(arglead)
    return require("agent_lsp.choices").complete("modes", arglead)
  end,
  desc = "Set the agent's approval mode",
})

command("AgentModel", function(o)
  require("agent_lsp").set_model(o.args ~= "" and o.args or nil)
end, {
  nargs = "?",
  complete = function(arglead)
    return require("agent_lsp.choices").complete("models", arglead)
  end,
  desc = "Set the agent's model",
})

command("AgentExplain", function(o)
  require("agent_lsp").explain(o.line1, o.line2)
end, { range = true, desc = "Explain the selected lines with the agent" })

command("AgentFix", function(o)
  require("agent_lsp").fix(o.line1, o.line2)
end, { range = true, desc = "Fix the selected lines with the agent" })

command("AgentEdit", function(o)
  require("agent_lsp").edit(o.line1, o.line2, o.args ~= "" and o.args or nil)
end, { range = true, nargs = "*", desc = "Edit the selected lines with the agent" })

command("AgentMcp", function(o)
  require("agent_lsp").prompt(o.args ~= "" and ("/mcp " .. o.args) or "/mcp")
end, {
  nargs = "*",
  desc = "The agent's MCP servers and what they offer; `refresh [server]` restarts, `auth [server]` signs in",
})

command("AgentTasks", function(o)
  require("agent_lsp").prompt(o.args ~= "" and ("/tasks " .. o.args) or "/tasks")
end, { nargs = "*", desc = "The agent's background processes: list, `<pid>` shows output, `stop <pid>` stops one" })

command("AgentLogin", function(o)
  require("agent_lsp.login").login(o.fargs)
end, { nargs = "*", desc = "Sign in: run `agent-lsp login` in a terminal window (flags pass through)" })

command("AgentLogout", function()
  require("agent_lsp.login").logout()
end, { desc = "Sign out: remove the sign-in `agent-lsp login` stored" })

command("AgentAdd", function(o)
  require("agent_lsp.chat.attach").add(o.line1, o.line2)
end, { range = true, desc = "Put the selected lines (with file and line numbers) into the agent's prompt" })

command("AgentAttach", function(o)
  local images = require("agent_lsp.chat.images")
  if o.bang then
    return images.clear()
  end
  images.attach(o.args)
end, {
  nargs = "?",
  bang = true,
  complete = "file",
  desc = "Attach an image file to the next prompt (png, jpeg, gif, webp; ! clears the attached images)",
})

command("AgentAutoApprove", function(o)
  require("agent_lsp.auto_approve").command(o.fargs)
end, {
  nargs = "*",
  complete = function(arglead, line)
    return require("agent_lsp.auto_approve").complete(arglead, line)
  end,
  desc = "Auto-approve a kind of tool (read, edit, shell, mcp, web) for this session or workspace, or turn it off",
})

-- A session opened or loaded: its auto-approve switches (a workspace's saved ones) for the winbar.
vim.api.nvim_create_autocmd("User", {
  pattern = "AgentSession",
  callback = function()
    require("agent_lsp.auto_approve").refresh()
  end,
})

command("AgentLspInstall", function()
  require("agent_lsp.install").command()
end, { desc = "Install or update the agent server from this plugin's checkout into a private venv" })

-- <Plug> mappings for your own keys, e.g. vim.keymap.set({ "n", "x" }, "<leader>ae", "<Plug>(AgentExplain)").
-- In normal mode the range actions take the current line; in visual mode, the selection.
---@param lhs string
---@param modes string|string[]
---@param rhs string|function
---@param desc string
local function plug(lhs, modes, rhs, desc)
  vim.keymap.set(modes, "<Plug>(" .. lhs .. ")", rhs, { silent = true, desc = desc })
end

plug("AgentChat", "n", "<Cmd>AgentChat<CR>", "Open the agent chat")
plug("AgentCancel", "n", "<Cmd>AgentCancel<CR>", "Cancel the agent's running turn")
plug("AgentNew", "n", "<Cmd>AgentNew<CR>", "Start a new agent session")
plug("AgentSessions", "n", "<Cmd>AgentSessions<CR>", "Load a saved agent session")
plug("AgentMode", "n", "<Cmd>AgentMode<CR>", "Choose the agent's approval mode")
plug("AgentExplain", "n", "<Cmd>AgentExplain<CR>", "Explain the current line with the agent")
plug("AgentExplain", "x", ":AgentExplain<CR>", "Explain the selection with the agent")
plug("AgentFix", "n", "<Cmd>AgentFix<CR>", "Fix the current line with the agent")
plug("AgentFix", "x", ":AgentFix<CR>", "Fix the selection with the agent")
plug("AgentEdit", "n", "<Cmd>AgentEdit<CR>", "Edit the current line with the agent")
plug("AgentEdit", "x", ":AgentEdit<CR>", "Edit the selection with the agent")
-- Inline review (they act on the review open in the current buffer).
---@param fn string
---@return fun()
local function inline(fn)
  return function()
    require("agent_lsp.inline")[fn]()
  end
end
plug("AgentHunkNext", "n", inline("next_hunk"), "Inline review: next hunk")
plug("AgentHunkPrev", "n", inline("prev_hunk"), "Inline review: previous hunk")
plug("AgentHunkAccept", "n", inline("accept_hunk"), "Inline review: accept the hunk under the cursor")
plug("AgentHunkReject", "n", inline("reject_hunk"), "Inline review: reject the hunk under the cursor")
plug("AgentReviewAcceptAll", "n", inline("accept_all"), "Inline review: accept every open hunk")
plug("AgentReviewRejectAll", "n", inline("reject_all"), "Inline review: reject every open hunk")
plug("AgentReviewDiff", "n", inline("open_diff"), "Inline review: open the diff tab instead")
