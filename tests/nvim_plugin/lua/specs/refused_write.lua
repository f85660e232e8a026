--- Spec (issue #41): an edit Neovim cannot write (a read-only file) and an edit computed against a hidden buffer
--- whose file changed on disk are answered applied=false with the reason; the buffers hold the disk's text after
--- (nothing half-done is left to be written by a later :wa). The test reads what the model was told. A file the
--- agent's shell command rewrites has its hidden buffer reloaded when the turn ends.

local H = require("harness")

---@param path string
---@return integer
local function loaded(path)
  local buf = vim.fn.bufnr(path)
  H.ok(buf ~= -1 and vim.api.nvim_buf_is_loaded(buf), path .. " loaded")
  return buf
end

return function()
  H.setup_endpoint({ approval_mode = "auto_edit" })
  local done = H.record("AgentTurnDone")
  local ro, util = H.project .. "/ro.py", H.project .. "/util.py"
  assert(vim.uv.fs_chmod(ro, tonumber("444", 8)))
  require("agent_lsp").prompt("change ro.py")
  H.wait(function()
    return #done == 1
  end, "the read-only turn")
  H.eq(vim.fn.readfile(ro), { "x = 1" }, "ro.py untouched on disk")
  local ro_buf = loaded(ro)
  H.eq(vim.api.nvim_buf_get_lines(ro_buf, 0, -1, false), { "x = 1" }, "its buffer back to the file's text")
  H.ok(not vim.bo[ro_buf].modified, "nothing unsaved left behind")
  H.contains(H.chat_text(), "✗ Edit ro.py · failed: ", "the failed call in the chat")

  -- A hidden buffer of util.py, then the file changes on disk under it (another program).
  local util_buf = vim.fn.bufadd(util)
  vim.fn.bufload(util_buf)
  H.wait(function()
    return #vim.lsp.get_clients({ bufnr = util_buf, name = "agent-lsp" }) == 1
  end, "util.py attached")
  vim.fn.writefile({ "u = 55" }, util)
  require("agent_lsp").prompt("change util.py")
  H.wait(function()
    return #done == 2
  end, "the stale-buffer turn")
  H.eq(vim.fn.readfile(util), { "u = 6" }, "the retry against the file's text written")
  H.eq(vim.api.nvim_buf_get_lines(util_buf, 0, -1, false), { "u = 6" }, "util.py's buffer")
  H.ok(not vim.bo[util_buf].modified, "saved")
  H.contains(H.chat_text(), "Done.")

  -- The agent's shell command rewrites util.py: at the turn's end its hidden buffer holds the new text.
  H.stub_select(H.pick("Allow once"))
  require("agent_lsp").prompt("rewrite util.py with the shell")
  H.wait(function()
    return #done == 3
  end, "the shell turn")
  H.eq(vim.fn.readfile(util), { "u = 7" }, "the command wrote util.py")
  H.eq(vim.api.nvim_buf_get_lines(util_buf, 0, -1, false), { "u = 7" }, "its hidden buffer followed")
  H.ok(not vim.bo[util_buf].modified, "nothing unsaved")
end
