--- Not a test: the scene scripts/nvim_screenshots.py photographs in a real terminal (tmux). A prompt whose turn reads,
--- edits and runs a command; the chat with its folds closed, then the edit's fold opened. Between scenes it waits
--- for the file named by AGENT_NVIM_SHOT_FLAG to say the picture was taken.

local H = require("harness")

---@param scene string
local function pose(scene)
  local flag = assert(os.getenv("AGENT_NVIM_SHOT_FLAG"), "AGENT_NVIM_SHOT_FLAG is not set")
  vim.cmd.redraw({ bang = true })
  vim.fn.writefile({ scene }, flag .. ".ready")
  H.wait(function()
    return vim.uv.fs_stat(flag .. "." .. scene) ~= nil
  end, "the picture of " .. scene, 60000)
end

return function()
  H.setup({ chat = { position = "right", width = 78 } })
  H.stub_select(H.pick("Allow once")) -- the edit and the command are asked about; allowed once each
  local done = H.record("AgentTurnDone")
  vim.cmd.edit(H.project .. "/stats.py")
  vim.cmd("AgentChat")
  vim.cmd.stopinsert()
  require("agent_lsp").prompt("mean() is off by one, fix it and check it imports")
  H.wait(function()
    return #done == 1
  end, "the turn")
  local view = require("agent_lsp.chat.view")
  local twin = assert(view.windows())
  vim.api.nvim_set_current_win(twin)
  vim.api.nvim_win_set_cursor(twin, { 1, 0 })
  pose("closed")
  local t = view.transcript()
  for i, line in ipairs(vim.api.nvim_buf_get_lines(t.buf, 0, -1, false)) do
    if line:find("^✓ Edit stats.py") then
      vim.api.nvim_win_set_cursor(twin, { i, 0 })
      vim.cmd("normal! zo")
    end
  end
  vim.api.nvim_win_set_cursor(twin, { 1, 0 })
  pose("open")
end
