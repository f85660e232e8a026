--- Buffer-local review mappings that are put back as they were afterwards (diff tab and inline review share them).
local M = {}

---Map `maps` in normal mode on `buf` until the returned function runs; a buffer-local mapping of the same key is
---saved and restored. When the user has a global mapping of the key, `on_shadowed(lhs)` is called (it is shadowed
---only while the review lasts).
---@param buf integer
---@param maps table<string, fun()>
---@param desc string
---@param on_shadowed? fun(lhs: string)
---@return fun() restore
function M.map_temporarily(buf, maps, desc, on_shadowed)
  local saved = {} ---@type table<string, table>
  for lhs, fn in pairs(maps) do
    local old = vim.api.nvim_buf_call(buf, function()
      return vim.fn.maparg(lhs, "n", false, true)
    end)
    if type(old) == "table" and old.buffer == 1 then
      saved[lhs] = old
    elseif type(old) == "table" and old.lhs and on_shadowed then
      on_shadowed(lhs)
    end
    vim.keymap.set("n", lhs, fn, { buffer = buf, nowait = true, desc = desc })
  end
  return function()
    if not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    for lhs in pairs(maps) do
      pcall(vim.keymap.del, "n", lhs, { buffer = buf })
      if saved[lhs] then
        vim.api.nvim_buf_call(buf, function()
          vim.fn.mapset("n", false, saved[lhs])
        end)
      end
    end
  end
end

return M
