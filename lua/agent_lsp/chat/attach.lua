--- Context for the next prompt from the editor: `:AgentAdd` puts the selected lines, with their file and line
--- numbers, into the chat's prompt buffer (a fenced block the model reads with the question).

local M = {}

---The lines `first`..`last` of `bufnr` as a fenced block headed by where they come from.
---@param bufnr integer
---@param first integer
---@param last integer
---@return string[]
function M.block(bufnr, first, last)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local shown = name ~= "" and vim.fn.fnamemodify(name, ":.") or "[No Name]"
  local span = first == last and ("line " .. first) or ("lines " .. first .. "-" .. last)
  local lines = { ("From `%s` %s:"):format(shown, span), "```" .. (vim.bo[bufnr].filetype or "") }
  vim.list_extend(lines, vim.api.nvim_buf_get_lines(bufnr, first - 1, last, false))
  lines[#lines + 1] = "```"
  return lines
end

---Append the lines to the prompt buffer (after what is there, a blank line between) and open the chat there.
---@param first integer
---@param last integer
function M.add(first, last)
  local lines = M.block(vim.api.nvim_get_current_buf(), first, last)
  local view = require("agent_lsp.chat.view")
  local buf = view.prompt_buf()
  local have = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local empty = #have == 1 and have[1] == ""
  if empty then
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  else
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, vim.list_extend({ "" }, lines))
  end
  view.open()
  local _, pwin = view.windows()
  if pwin then
    vim.api.nvim_win_set_cursor(pwin, { vim.api.nvim_buf_line_count(buf), 0 })
  end
end

return M
