--- Not a test: the scene scripts/nvim_screenshots.py photographs in a real terminal (tmux). A prompt whose turn reads,
--- edits and runs a command; the chat with its folds closed, then the edit's fold opened; then a prompt that runs a
--- subagent, its fold opened on the subagent's nested steps. Between scenes it waits
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

  require("agent_lsp").prompt("what is in stats.py? ask the investigator")
  H.wait(function()
    return #done == 2
  end, "the subagent's turn")
  vim.api.nvim_set_current_win(twin)
  local lines = vim.api.nvim_buf_get_lines(t.buf, 0, -1, false)
  for i = #lines, 1, -1 do
    if lines[i]:find("Delegating to agent", 1, true) then
      vim.api.nvim_win_set_cursor(twin, { i, 0 })
      vim.cmd("normal! zo")
    elseif lines[i] == "## You" then
      vim.api.nvim_win_set_cursor(twin, { i, 0 })
      vim.cmd("normal! zt")
      break
    end
  end
  pose("subagent")
end
