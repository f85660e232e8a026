--- Spec: a new file proposed by write_file is reviewed against an empty side and created through the edit.

local H = require("harness")

return function()
  H.setup()
  H.stub_select(H.pick("Review diff"))
  local done = H.record("AgentTurnDone")
  local path = H.project .. "/pkg/util.py"
  vim.cmd.edit(H.project .. "/main.py")

  require("agent_lsp").prompt("add a helper module")
  H.wait(function()
    return #vim.api.nvim_list_tabpages() == 2
  end, "the diff tab")
  local wins = vim.api.nvim_tabpage_list_wins(0)
  local left = vim.api.nvim_win_get_buf(wins[1])
  H.eq(vim.api.nvim_buf_get_name(left), "agent://new/" .. path, "the empty side's name")
  H.eq(vim.api.nvim_buf_get_lines(left, 0, -1, false), { "" }, "the empty side")
  H.eq(vim.bo[vim.api.nvim_win_get_buf(wins[2])].filetype, "python", "the proposal's filetype")
  vim.api.nvim_feedkeys("\\a", "mx", false) -- <localleader>a
  H.wait(function()
    return #done == 1
  end, "the end of the turn")
  H.eq(done[1].stopReason, "end_turn", "stop reason")
  local buf = -1
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b) == path then
      buf = b
    end
  end
  H.ok(buf ~= -1, "a buffer for the new file")
  H.eq(vim.api.nvim_buf_get_lines(buf, 0, -1, false), { "def double(x):", "    return 2 * x" }, "its text")
  H.ok(vim.bo[buf].eol, "a final newline when written")
  H.no_sync_warning()
  H.ok(vim.uv.fs_stat(path) ~= nil, "the file exists on disk")
  H.eq(vim.fn.bufexists("agent://new/" .. path), 0, "the scratch side is gone")
end
