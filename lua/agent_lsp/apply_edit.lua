--- workspace/applyEdit for the agent's edits: applied with Neovim's own handler, written to disk when the buffer
--- held no unsaved changes of the user's (`save_after_edit`), and answered `applied = true` only when that is done.
--- A buffer whose file changed on disk since Neovim read it (the edit was computed against its stale text), or a
--- write Neovim refused, is answered `applied = false` with the reason, which the model reads.
---
--- The one line-ending fix kept here: Neovim shows an empty file as one empty line with 'eol', so text inserted
--- into it ("a\nb\n") would keep that line as a stray last one; the final "\n" is dropped from such an insertion.
--- The server cannot do this for every client (VS Code needs that "\n"). Appends after a file's last newline are
--- the server's job (adapters/lsp/edits.py sends them as insertions before that newline, for every client).

local buffers = require("agent_lsp.buffers")

local M = {}

---@param buf integer
---@return boolean
local function ends_with_newline(buf)
  local bo = vim.bo[buf]
  return bo.eol or (bo.fixeol and not bo.binary)
end

---Drop the final "\n" of insertions into an empty document (Neovim still shows one empty line there).
---@param edits lsp.TextEdit[]
---@param empty boolean The document is empty
function M.fix_edits(edits, empty)
  if not empty then
    return
  end
  for _, e in ipairs(edits) do
    local start, stop = e.range.start, e.range["end"]
    local at_start = start.line == 0 and start.character == 0 and stop.line == 0 and stop.character == 0
    if at_start and e.newText:sub(-1) == "\n" then
      e.newText = e.newText:sub(1, -2)
    end
  end
end

---@param uri string
---@param edits lsp.TextEdit[]
---@param created boolean The same workspace edit creates the file first
local function fix_document(uri, edits, created)
  if created then
    return M.fix_edits(edits, true)
  end
  local buf = vim.uri_to_bufnr(uri)
  vim.fn.bufload(buf) -- as Neovim's handler would; the edit is computed against the file's text
  if ends_with_newline(buf) then
    local count = vim.api.nvim_buf_line_count(buf)
    M.fix_edits(edits, count == 1 and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == "")
  end
end

---Adjust a WorkspaceEdit in place; returns the URIs of the files it creates.
---@param edit lsp.WorkspaceEdit
---@return string[] created
function M.normalize(edit)
  local created = {} ---@type table<string, boolean>
  local order = {} ---@type string[]
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.kind == "create" then
      created[change.uri] = true
      order[#order + 1] = change.uri
    elseif change.textDocument and change.edits then
      fix_document(change.textDocument.uri, change.edits, created[change.textDocument.uri] == true)
    end
  end
  for uri, edits in pairs(edit.changes or {}) do
    fix_document(uri, edits, false)
  end
  return order
end

---URIs of the documents a WorkspaceEdit changes.
---@param edit lsp.WorkspaceEdit
---@return string[]
local function edited_uris(edit)
  local uris = {} ---@type string[]
  for _, change in ipairs(edit.documentChanges or {}) do
    local uri = change.textDocument and change.textDocument.uri or change.uri
    if uri then
      uris[#uris + 1] = uri
    end
  end
  for uri in pairs(edit.changes or {}) do
    uris[#uris + 1] = uri
  end
  return uris
end

---Buffers of the edit that hold no unsaved user changes now (not loaded, or loaded and unmodified).
---@param uris string[]
---@return integer[]
local function clean_buffers(uris)
  local clean = {} ---@type integer[]
  for _, uri in ipairs(uris) do
    local buf = vim.uri_to_bufnr(uri)
    if not vim.api.nvim_buf_is_loaded(buf) or not vim.bo[buf].modified then
      clean[#clean + 1] = buf
    end
  end
  return clean
end

---@param buf integer
---@return string
local function shown(buf)
  return vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":.")
end

---Write `buf` (it held no unsaved changes before the edit); nil when it reached the disk, else why not.
---@param buf integer
---@return string?
local function write(buf)
  local ok, err = pcall(vim.api.nvim_buf_call, buf, function()
    vim.cmd("silent noautocmd keepalt write")
  end)
  if ok and not vim.bo[buf].modified then
    return nil
  end
  local why = ok and "the write was declined" or vim.split(tostring(err):match("(E%d+:.*)$") or tostring(err), "\n")[1]
  return ("Neovim could not write %s (%s)"):format(shown(buf), why)
end

---The lsp.Handler: normalize, apply with Neovim's own handler, and give created files a final newline.
---With `save_after_edit`, files that had no unsaved changes are written, so the commands the agent runs
---next (tests, builds) see its edits; a buffer with the user's own unsaved changes is never written.
---@param err lsp.ResponseError?
---@param params lsp.ApplyWorkspaceEditParams
---@param ctx lsp.HandlerContext
---@return lsp.ApplyWorkspaceEditResult
function M.handler(err, params, ctx)
  local edit = type(params) == "table" and params.edit or nil
  local save = edit ~= nil and require("agent_lsp.config").options.save_after_edit
  local clean = save and clean_buffers(edited_uris(edit)) or {}
  for _, buf in ipairs(clean) do
    if buffers.stale(buf) then
      -- The edit was computed against the text this buffer held, which the disk no longer has: load the disk's
      -- (nothing of the user's is lost: the buffer had no unsaved changes) and let the model read it again.
      buffers.reload(buf)
      local why = "%s changed on disk since Neovim read it; its buffer now holds the file's text: read it again"
      return { applied = false, failureReason = why:format(shown(buf)) }
    end
  end
  local created = edit and M.normalize(edit) or {}
  local result = vim.lsp.handlers["workspace/applyEdit"](err, params, ctx)
  for _, uri in ipairs(created) do
    vim.bo[vim.uri_to_bufnr(uri)].eol = true
  end
  if not (result and result.applied) then
    return result
  end
  for _, buf in ipairs(clean) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].modified then
      local failed = write(buf)
      if failed then
        -- Not on disk, so not done: the buffer goes back to the file's text (it had no unsaved changes of the
        -- user's), and the model is told why.
        buffers.reload(buf)
        return { applied = false, failureReason = failed }
      end
    end
  end
  return result
end

return M
