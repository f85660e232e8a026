--- Spec: the plugin as a plugin manager installs it — a clone with no server anywhere — builds its server with
--- :AgentLspInstall (lazy.nvim's `build`), and then chats with `opts = {}` alone.

local H = require("harness")

return function()
  local install = require("agent_lsp.install")
  H.eq(vim.fn.executable("agent-lsp"), 0, "agent-lsp on PATH")
  H.eq(install.server_cmd(), nil, "a venv before the build step")
  H.eq(install.plugin_root(), vim.fs.normalize(H.repo), "the plugin's checkout")

  -- Before the build: :checkhealth says the server is missing and how to fix it.
  require("agent_lsp").setup({})
  vim.cmd("checkhealth agent_lsp")
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  H.contains(text, "the agent server is not installed")
  H.contains(text, ":AgentLspInstall")
  H.contains(text, 'build = ":AgentLspInstall"')
  H.contains(text, "uv tool install agent-lsp-server")
  vim.cmd("silent! tabclose") -- :checkhealth opens a tab unless the window was empty

  -- The build step, as lazy.nvim runs it: a command in the running Neovim, after the plugin loaded.
  vim.cmd("AgentLspInstall")
  local cmd = install.server_cmd()
  H.ok(cmd, "the private venv's server after the build step")
  H.ok(cmd[1]:find(vim.fn.stdpath("data"), 1, true) == 1, "the venv under stdpath('data'): " .. cmd[1])
  H.eq(require("agent_lsp.config").cmd(), cmd, "the default server command")

  vim.cmd("checkhealth agent_lsp")
  text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  H.contains(text, "version: agent-lsp ")
  H.contains(text, "the private venv made by :AgentLspInstall")
  vim.cmd("silent! tabclose") -- :checkhealth opens a tab unless the window was empty

  -- :help agent-lsp, once the manager has generated the help tags (lazy.nvim does so after the build).
  vim.cmd.helptags(vim.fs.joinpath(H.repo, "doc"))
  vim.cmd.help("agent-lsp")
  H.contains(vim.api.nvim_buf_get_name(0), "doc/agent-lsp.txt")
  vim.cmd.help(":AgentLspInstall")
  vim.cmd.help("<Plug>(AgentExplain)")
  vim.cmd("helpclose")

  -- Chat through the installed server; only the replay flag is added to its command.
  require("agent_lsp").setup({ cmd = vim.list_extend(vim.deepcopy(cmd), { "--fake-responses", H.responses }) })
  local done = H.record("AgentTurnDone")
  vim.cmd.edit(H.project .. "/main.py")
  vim.api.nvim_feedkeys(vim.keycode("<Plug>(AgentChat)"), "mx", false)
  H.wait(function()
    return require("agent_lsp.session").current ~= nil
  end, "a session", 60000)
  require("agent_lsp").prompt("what is in this project?")
  H.wait(function()
    return #done == 1
  end, "the end of the turn", 60000)
  H.eq(done[1].stopReason, "end_turn", "stop reason")
  H.contains(H.chat_text(), "The installed server answered.")
end
