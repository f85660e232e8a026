--- workspace/applyEdit that leaves no stray empty last line when an edit appends to a file's end.
---
--- An LSP text "a\nb\n" is the buffer {"a", "b"} with 'eol' in Neovim, but Neovim inserts an edit's newText
--- at (2, 0) — or into an empty, just-created buffer — line by line, so the final "\n" becomes an extra
--- empty line. Dropping that one "\n" from such insertions gives the text the server computed.

local M = {}

---@param buf integer
---@return boolean
local function ends_with_newline(buf)
  local bo = vim.bo[buf]
  return bo.eol or (bo.fixeol and not bo.binary)
end

---Drop the final "\n" of insertions at the end of a document with `line_count` lines.
---@param edits lsp.TextEdit[]
---@param line_count integer
---@param empty boolean The document is empty (Neovim still shows one empty line)
function M.fix_edits(edits, line_count, empty)
  for _, e in ipairs(edits) do
    local start, stop = e.range.start, e.range["end"]
    local insertion = start.line == stop.line and start.character == stop.character
    local at_end = start.line >= line_count or (empty and start.line == 0 and start.character == 0)
    if insertion and at_end and e.newText:sub(-1) == "\n" then
      e.newText = e.newText:sub(1, -2)
    end
  end
end

---@param uri string
---@param edits lsp.TextEdit[]
---@param created boolean The same workspace edit creates the file first
local function fix_document(uri, edits, created)
  if created then
    return M.fix_edits(edits, 1, true)
  end
  local buf = vim.uri_to_bufnr(uri)
  vim.fn.bufload(buf) -- as Neovim's handler would; the edit is computed against the file's text
  if ends_with_newline(buf) then
    local count = vim.api.nvim_buf_line_count(buf)
    M.fix_edits(edits, count, count == 1 and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == "")
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
  local created = edit and M.normalize(edit) or {}
  local result = vim.lsp.handlers["workspace/applyEdit"](err, params, ctx)
  for _, uri in ipairs(created) do
    vim.bo[vim.uri_to_bufnr(uri)].eol = true
  end
  if result and result.applied then
    for _, buf in ipairs(clean) do
      if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].modified then
        vim.api.nvim_buf_call(buf, function()
          vim.cmd("silent noautocmd keepalt write")
        end)
      end
    end
  end
  return result
end

return M
