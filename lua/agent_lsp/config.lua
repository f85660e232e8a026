--- Options for require("agent_lsp").setup(): defaults, validation and the merged result.

---The server's approval modes when this was written, for documentation only: the plugin takes the list from the
---server (the session's `modes`), and the server checks the value and says what it accepts.
---@alias agent_lsp.ApprovalMode "default"|"auto_edit"|"yolo"|"plan"|string

---@class agent_lsp.Keymaps
---@field accept string Diff tab, buffer-local while the review is open: accept the proposal (with your edits)
---@field reject string Diff tab, buffer-local while the review is open: reject the proposal
---  (in an inline review: accept / reject the hunk under the cursor)
---@field hunk_next string Inline review, buffer-local: go to the next hunk
---@field hunk_prev string Inline review, buffer-local: go to the previous hunk
---@field accept_all string Inline review, buffer-local: accept every hunk still open
---@field reject_all string Inline review, buffer-local: reject every hunk still open
---@field open_diff string Inline review, buffer-local: review the whole proposal in the diff tab instead
---@field submit string Chat prompt, normal mode: send the prompt
---@field submit_insert string Chat prompt, insert mode: send the prompt
---@field cancel string Chat windows, normal mode: cancel the running turn
---@field close string Chat windows, normal mode: close the chat
---@field rewind string Chat transcript, normal mode: rewind to before the message under the cursor
---@field edit string Chat transcript, normal mode: rewind to before the message and put it in the prompt to edit
---@field fork string Chat transcript, normal mode: a new session with the conversation before the message

---@class agent_lsp.ChatOptions
---@field position "right"|"left"|"top"|"bottom" Where the chat split opens
---@field width integer Columns of a left/right chat
---@field height integer Lines of a top/bottom chat
---@field prompt_height integer Lines of the prompt window under the transcript

---@class agent_lsp.Config
---@field cmd string[]? The server command; nil: the private venv of :AgentLspInstall, else `agent-lsp lsp` on PATH
---@field cmd_env table<string, string>? Extra environment for the server process
---@field model string? Gemini model for new sessions (nil: the server's settings)
---@field approval_mode agent_lsp.ApprovalMode? Approval mode for new sessions (nil: the server's settings)
---@field settings table<string, any>? More agentLsp settings, sent as initializationOptions
---@field root_markers string[] Files or folders that mark a workspace root
---@field auto_attach boolean Attach the server to file buffers as they are opened
---@field save_after_edit boolean Write files the agent edited when they had no unsaved changes before
---@field chat agent_lsp.ChatOptions
---@field keymaps agent_lsp.Keymaps

---@class agent_lsp.UserConfig
---@field cmd string[]?
---@field cmd_env table<string, string>?
---@field model string?
---@field approval_mode agent_lsp.ApprovalMode?
---@field settings table<string, any>?
---@field root_markers string[]?
---@field auto_attach boolean?
---@field save_after_edit boolean?
---@field chat agent_lsp.ChatOptions?
---@field keymaps agent_lsp.Keymaps?

local M = {}

---@type agent_lsp.Config
M.defaults = {
  cmd = nil,
  cmd_env = nil,
  model = nil,
  approval_mode = nil,
  settings = nil,
  root_markers = { ".git", ".gemini", "pyproject.toml", "package.json", "Cargo.toml", "go.mod" },
  auto_attach = true,
  save_after_edit = true,
  chat = { position = "right", width = 80, height = 20, prompt_height = 4 },
  keymaps = {
    -- Not ga/gr: those are Neovim's (ga, and gr… for the LSP defaults grn/grr/gra/gri) in the file buffer too.
    accept = "<localleader>a",
    reject = "<localleader>r",
    -- ]h / [h are not Neovim motions (]c / [c are the diff ones, left alone).
    hunk_next = "]h",
    hunk_prev = "[h",
    accept_all = "<localleader>A",
    reject_all = "<localleader>R",
    open_diff = "<localleader>d",
    submit = "<CR>",
    submit_insert = "<C-s>",
    cancel = "<C-c>",
    close = "q",
    rewind = "<localleader>u",
    edit = "<localleader>e",
    fork = "<localleader>f",
  },
}

---@type agent_lsp.Config
M.options = vim.deepcopy(M.defaults)

---Merge user options over the defaults; raises on a value of the wrong type.
---@param user agent_lsp.UserConfig?
---@return agent_lsp.Config
function M.set(user)
  user = user or {}
  vim.validate("cmd", user.cmd, "table", true)
  vim.validate("model", user.model, "string", true)
  -- Which modes exist is the server's word: it refuses an unknown one, naming the modes it has.
  vim.validate("approval_mode", user.approval_mode, "string", true)
  vim.validate("settings", user.settings, "table", true)
  vim.validate("root_markers", user.root_markers, "table", true)
  vim.validate("auto_attach", user.auto_attach, "boolean", true)
  vim.validate("save_after_edit", user.save_after_edit, "boolean", true)
  vim.validate("chat", user.chat, "table", true)
  vim.validate("keymaps", user.keymaps, "table", true)
  -- Lists replace rather than merge: a user's cmd must not keep trailing default arguments.
  local merged = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), user)
  merged.cmd = user.cmd and vim.deepcopy(user.cmd) or merged.cmd
  merged.root_markers = user.root_markers and vim.deepcopy(user.root_markers) or merged.root_markers
  M.options = merged
  return merged
end

---The server command: the user's `cmd`, else the private venv :AgentLspInstall made, else `agent-lsp` on PATH
---(`uv tool install agent-lsp-server` or `pipx install agent-lsp-server`).
---@param opts agent_lsp.Config?
---@return string[]
function M.cmd(opts)
  opts = opts or M.options
  if opts.cmd then
    return opts.cmd
  end
  return require("agent_lsp.install").server_cmd() or { "agent-lsp", "lsp" }
end

---Modes the server takes from initializationOptions: it ignores a wider one there (a project can fill that
---channel in other editors, docs/security.md) and says so; the plugin sends those with each new session instead.
local NARROW_MODES = { default = true, plan = true }

---The approval mode for new sessions, from the user's own setup(): `approval_mode`, else `settings.approvalMode`.
---@param opts agent_lsp.Config
---@return string?
function M.session_mode(opts)
  local settings = opts.settings or {}
  return opts.approval_mode or settings.approvalMode or settings.approval_mode
end

---The agentLsp settings the server reads from initializationOptions: no approval mode wider than default
---(session.lua sends the user's mode with agent/newSession, where the server takes it as the user's choice).
---@param opts agent_lsp.Config
---@return table<string, any>
function M.server_settings(opts)
  local section = vim.deepcopy(opts.settings or {})
  section.model = opts.model or section.model
  local mode = M.session_mode(opts)
  section.approvalMode = NARROW_MODES[mode] and mode or nil
  section.approval_mode = nil -- the server reads this spelling too
  -- An empty Lua table would be sent as a JSON array, which the server rightly refuses.
  return { agentLsp = next(section) and section or vim.empty_dict() }
end

return M
