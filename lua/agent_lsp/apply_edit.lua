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

---The lsp.Handler: normalize, apply with Neovim's own handler, and give created files a final newline.
---@param err lsp.ResponseError?
---@param params lsp.ApplyWorkspaceEditParams
---@param ctx lsp.HandlerContext
---@return lsp.ApplyWorkspaceEditResult
function M.handler(err, params, ctx)
  local created = type(params) == "table" and params.edit and M.normalize(params.edit) or {}
  local result = vim.lsp.handlers["workspace/applyEdit"](err, params, ctx)
  for _, uri in ipairs(created) do
    vim.bo[vim.uri_to_bufnr(uri)].eol = true
  end
  return result
end

return M
