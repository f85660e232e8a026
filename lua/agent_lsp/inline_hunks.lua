--- The inline review's hunks, pure: a proposal split into runs of changed lines, and the text the accepted ones
--- make.

local M = {}

---@class agent_lsp.InlineHunk
---@field a_start integer 0-based first line of the original it replaces (for an insertion: the line it precedes)
---@field a_count integer
---@field removed string[]
---@field added string[]

---@param text string
---@return string[]
local function lines_of(text)
  local lines = vim.split(text, "\n", { plain = true })
  if lines[#lines] == "" then
    lines[#lines] = nil
  end
  return lines
end

---The proposal's hunks: each run of changed lines, without context, so each can be taken on its own.
---@param old_text string
---@param new_text string
---@return agent_lsp.InlineHunk[]
function M.hunks(old_text, new_text)
  local diff = (vim.text and vim.text.diff) or vim.diff
  local old, new = lines_of(old_text), lines_of(new_text)
  local indices = diff(old_text, new_text, { result_type = "indices", ctxlen = 0 }) --[[@as integer[][] ]]
  local hunks = {} ---@type agent_lsp.InlineHunk[]
  for _, h in ipairs(indices) do
    local start_a, count_a, start_b, count_b = h[1], h[2], h[3], h[4]
    -- For an insertion start_a is the line it follows (1-based), which is the 0-based line it precedes.
    local a_start = count_a > 0 and start_a - 1 or start_a
    local b_start = count_b > 0 and start_b - 1 or start_b
    hunks[#hunks + 1] = {
      a_start = a_start,
      a_count = count_a,
      removed = vim.list_slice(old, a_start + 1, a_start + count_a),
      added = vim.list_slice(new, b_start + 1, b_start + count_b),
    }
  end
  return hunks
end

---The original with the accepted hunks applied (rejected ones keep the original lines).
---@param old_text string
---@param hunks agent_lsp.InlineHunk[]
---@param decisions table<integer, "accept"|"reject">
---@return string
function M.compose(old_text, hunks, decisions)
  local old = lines_of(old_text)
  local out = {} ---@type string[]
  local at = 0
  for i, h in ipairs(hunks) do
    vim.list_extend(out, old, at + 1, h.a_start)
    vim.list_extend(out, decisions[i] == "accept" and h.added or h.removed)
    at = h.a_start + h.a_count
  end
  vim.list_extend(out, old, at + 1, #old)
  local text = table.concat(out, "\n")
  if #out > 0 and (old_text == "" or old_text:sub(-1) == "\n") then
    text = text .. "\n"
  end
  return text
end

return M
