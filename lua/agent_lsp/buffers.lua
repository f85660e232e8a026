--- Buffers of files whose disk text changed under them (a rewind, its undo, a turn's revert, a turn's shell
--- commands; an edit that found its buffer stale): reloaded whether a window shows them or not; a buffer holding
--- the user's unsaved changes is kept as it is, and named, never overwritten.

local M = {}

---@param path string
---@return string
local function real(path)
  local normal = vim.fs.normalize(path)
  return vim.uv.fs_realpath(normal) or normal
end

---The loaded buffer holding `path` (absolute), if any.
---@param path string
---@return integer?
function M.find(path)
  local want = real(path)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == "" then
      local name = vim.api.nvim_buf_get_name(buf)
      if name ~= "" and real(name) == want then
        return buf
      end
    end
  end
  return nil
end

---Load the disk's text into `buf` (which has no unsaved changes): `:edit!` in the buffer, so a hidden one reloads
---too, and the reload is one undo step (see 'undoreload').
---@param buf integer
function M.reload(buf)
  vim.api.nvim_buf_call(buf, function()
    vim.cmd("silent keepalt keepjumps edit!")
  end)
end

---Whether the file of loaded, unmodified `buf` changed on disk since Neovim read it: Neovim's own check (the one
---`:write` warns with), run with a FileChangedShell handler of ours so it asks nothing and reloads nothing.
---@param buf integer
---@return boolean
function M.stale(buf)
  if not vim.api.nvim_buf_is_loaded(buf) or vim.bo[buf].modified then
    return false
  end
  local group = vim.api.nvim_create_augroup("agent_lsp_stale_check", { clear = true })
  local changed = false
  vim.api.nvim_create_autocmd("FileChangedShell", {
    group = group,
    callback = function(ev)
      if ev.buf == buf then
        changed = vim.v.fcs_reason ~= "mode"
        vim.v.fcs_choice = "" -- handled here: no question, no reload
      end
    end,
  })
  local tick = vim.b[buf].changedtick
  pcall(vim.cmd, ("silent checktime %d"):format(buf))
  vim.api.nvim_del_augroup_by_id(group)
  -- Reloaded anyway (another FileChangedShell handler, or 'autoread' before ours ran): stale all the same.
  return changed or vim.b[buf].changedtick ~= tick
end

---Reload every loaded file buffer without unsaved changes whose file changed on disk (what the agent's shell
---commands or a /rewind typed in the chat changed): hidden ones too, which Neovim's own checks skip.
---@return string[] reloaded
function M.refresh_clean()
  local reloaded = {}
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(buf)
    local file = vim.bo[buf].buftype == "" and name ~= "" and not name:match("^%a[%w+.-]*://")
    if file and M.stale(buf) then
      if vim.uv.fs_stat(name) then
        M.reload(buf)
        reloaded[#reloaded + 1] = vim.fn.fnamemodify(name, ":.")
      end
    end
  end
  return reloaded
end

---Close `buf`, whose file is gone: windows showing it show their alternate buffer (or an empty one) instead.
---@param buf integer
local function drop(buf)
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    vim.api.nvim_win_call(win, function()
      local alt = vim.fn.bufnr("#")
      if alt > 0 and alt ~= buf and vim.api.nvim_buf_is_loaded(alt) then
        vim.cmd.buffer(alt)
      else
        vim.cmd.enew()
      end
    end)
  end
  vim.api.nvim_buf_delete(buf, {})
end

---@class agent_lsp.Reloaded
---@field reloaded string[] Buffers loaded again from disk
---@field closed string[] Buffers of files that are gone, closed
---@field kept string[] Buffers with the user's unsaved changes, left as they are (the disk has the other text)

---Bring the buffers of `paths` (relative to `root`, or absolute) in line with the disk, and say where a buffer
---with unsaved changes was kept.
---@param paths string[]
---@param root string
---@return agent_lsp.Reloaded
function M.follow_disk(paths, root)
  local done = { reloaded = {}, closed = {}, kept = {} } ---@type agent_lsp.Reloaded
  for _, path in ipairs(paths) do
    local full = vim.startswith(path, "/") and path or (root .. "/" .. path)
    local buf = M.find(full)
    if buf then
      local shown = vim.fn.fnamemodify(full, ":.")
      if vim.bo[buf].modified then
        done.kept[#done.kept + 1] = shown
      elseif vim.uv.fs_stat(full) then
        M.reload(buf)
        done.reloaded[#done.reloaded + 1] = shown
      else
        drop(buf)
        done.closed[#done.closed + 1] = shown
      end
    end
  end
  if #done.kept > 0 then
    local msg = "agent-lsp: kept your unsaved changes in %s; the file on disk was restored (:e! loads it, :w writes"
      .. " yours over it)"
    vim.notify(msg:format(table.concat(done.kept, ", ")), vim.log.levels.WARN)
  end
  return done
end

return M
