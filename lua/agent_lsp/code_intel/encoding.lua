--- Position encodings for code intelligence: the wire's UTF-16 to and from what a language server negotiated.

local C = {}

---@param line string
---@param from string
---@param to string
---@param col integer
---@return integer
function C.recode(line, from, to, col)
  if from == to then
    return col
  end
  local byte = from == "utf-8" and col or vim.str_byteindex(line, from, col, false)
  return to == "utf-8" and math.min(byte, #line) or vim.str_utfindex(line, to, byte, false)
end

---A function giving line `n` (0-based) of a file: its buffer's when loaded, else the file's on disk.
---@param uri string
---@return fun(n: integer): string
function C.lines_of(uri)
  local cache ---@type string[]?
  return function(n)
    local buf = vim.uri_to_bufnr(uri)
    if vim.api.nvim_buf_is_loaded(buf) then
      return vim.api.nvim_buf_get_lines(buf, n, n + 1, false)[1] or ""
    end
    if not cache then
      local ok, read = pcall(vim.fn.readfile, vim.uri_to_fname(uri))
      cache = ok and read or {}
    end
    return cache[n + 1] or ""
  end
end

---Convert every range and position in `value` (an LSP result) from `from` to `to`, in place.
---@param value any
---@param uri string The document the positions without a uri of their own are in
---@param from string
---@param to string
---@param line_cache table<string, fun(n: integer): string>?
---@return any
function C.recode_result(value, uri, from, to, line_cache)
  if from == to or type(value) ~= "table" then
    return value
  end
  line_cache = line_cache or {}
  ---@param p { line: integer, character: integer }
  ---@param in_uri string
  local function pos(p, in_uri)
    line_cache[in_uri] = line_cache[in_uri] or C.lines_of(in_uri)
    p.character = C.recode(line_cache[in_uri](p.line), from, to, p.character)
  end
  ---@param t any
  ---@param in_uri string
  local function walk(t, in_uri)
    if type(t) ~= "table" then
      return
    end
    if type(t.line) == "number" and type(t.character) == "number" then
      return pos(t, in_uri)
    end
    -- The document this table's positions are in: its own, an incoming call's caller's, else the enclosing one.
    local here = t.uri or t.targetUri or (t.textDocument and t.textDocument.uri) or in_uri
    if type(t.from) == "table" and t.from.uri then
      here = t.from.uri
    end
    for k, v in pairs(t) do
      if k == "originSelectionRange" then
        walk(v, uri)
      elseif k == "changes" and type(v) == "table" then
        for file, edits in pairs(v) do
          walk(edits, file)
        end
      else
        walk(v, here)
      end
    end
  end
  walk(value, uri)
  return value
end

return C
