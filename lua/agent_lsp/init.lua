--- agent-lsp for Neovim: setup() and the public API behind the :Agent* commands.

local config = require("agent_lsp.config")

local M = {}

local augroup = vim.api.nvim_create_augroup("agent_lsp", { clear = true })

---The running turn's latest progress message ("" when idle).
local progress_message = ""

---Configure the plugin; with `auto_attach` (the default) file buffers are attached to the server as they open.
---@param opts agent_lsp.UserConfig?
function M.setup(opts)
  local options = config.set(opts)
  vim.api.nvim_clear_autocmds({ group = augroup })
  if options.auto_attach then
    vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
      group = augroup,
      callback = function(ev)
        require("agent_lsp.client").attach(ev.buf)
      end,
    })
  end
  -- Turn progress into a live chat status; $/progress itself reaches fidget.nvim & co. as LspProgress.
  vim.api.nvim_create_autocmd("LspProgress", {
    group = augroup,
    callback = function(ev)
      local client = vim.lsp.get_client_by_id(ev.data.client_id)
      local value = ev.data.params and ev.data.params.value
      if not (client and client.name == "agent-lsp" and type(value) == "table") then
        return
      end
      progress_message = value.kind ~= "end" and (value.message or "") or ""
      local s = require("agent_lsp.session").current
      if value.kind == "report" and s and s.request and value.message then
        require("agent_lsp.chat.view").set_status(value.message)
      end
    end,
  })
end

---Open the chat split (and start the server and a session if needed).
function M.chat()
  require("agent_lsp.chat.view").open({ insert = true })
  require("agent_lsp.session").ensure(function() end)
end

---Send a prompt from code; the chat opens to show the answer.
---@param text string
---@param context table? {uri, range?, selectedText?, diagnostics?}
function M.prompt(text, context)
  require("agent_lsp.chat.view").open({ stay = true })
  require("agent_lsp.turns").prompt(text, context)
end

function M.cancel()
  require("agent_lsp.turns").cancel()
end

---Start a new session in a cleared chat.
function M.new_session()
  require("agent_lsp.chat.view").open()
  require("agent_lsp.session").new()
end

---Pick a saved session and replay it into the chat.
function M.sessions()
  require("agent_lsp.chat.view").open()
  require("agent_lsp.session").pick()
end

---@param mode string?
function M.set_mode(mode)
  require("agent_lsp.choices").set_mode(mode)
end

---@param model string?
function M.set_model(model)
  require("agent_lsp.choices").set_model(model)
end

---@param first integer
---@param last integer
function M.explain(first, last)
  require("agent_lsp.actions").on_range("agent.explain", first, last)
end

---@param first integer
---@param last integer
function M.fix(first, last)
  require("agent_lsp.actions").on_range("agent.fix", first, last)
end

---@param first integer
---@param last integer
---@param instruction string?
function M.edit(first, last, instruction)
  require("agent_lsp.actions").on_range("agent.editSelection", first, last, instruction)
end

---A short status for statuslines: the running turn's latest progress message, or "" when idle.
---@return string
function M.statusline()
  local s = package.loaded["agent_lsp.session"] and require("agent_lsp.session").current
  if not (s and s.request) then
    return ""
  end
  return "Agent: " .. (progress_message ~= "" and progress_message or "working…")
end

return M
