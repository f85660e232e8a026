--- Pure rendering of chat blocks (messages, thoughts, tool calls, plans) to markdown buffer lines.

---@alias agent_lsp.BlockKind "user"|"header"|"agent"|"thought"|"tool"|"plan"|"notice"

---@class agent_lsp.PlanEntry
---@field content string
---@field status "pending"|"in_progress"|"completed"
---@field priority string?

---@class agent_lsp.Block
---@field kind agent_lsp.BlockKind
---@field lines string[] Text content, one string per line (text kinds)
---@field id string? Tool call id
---@field title string? Tool call title
---@field status string? Tool call status
---@field tool_kind string? Tool call kind (read, edit, execute, …)
---@field detail string? A failed tool call's message
---@field subagent string? The subagent a call runs (invoke_agent): its steps fold under the call
---@field steps string[]? That subagent's steps so far
---@field entries agent_lsp.PlanEntry[]? Plan entries

local M = {}

-- Lines of a thought start with this, so the chat window's foldexpr can fold them without extra state.
M.THOUGHT_PREFIX = "┊ "
-- Lines of a subagent's steps, under its call (folded the same way).
M.STEP_PREFIX = "  ┆ "

M.STATUS_ICONS = {
  pending = "○",
  in_progress = "◐",
  completed = "✓",
  failed = "✗",
}

M.PLAN_MARKS = { pending = "[ ]", in_progress = "[~]", completed = "[x]" }

---Append streamed text to a block's lines: the first piece continues the last line.
---@param lines string[]
---@param text string
function M.append_text(lines, text)
  local pieces = vim.split(text, "\n", { plain = true })
  if #lines == 0 then
    lines[1] = ""
  end
  lines[#lines] = lines[#lines] .. pieces[1]
  for i = 2, #pieces do
    lines[#lines + 1] = pieces[i]
  end
end

---@param block agent_lsp.Block
---@return string
function M.tool_line(block)
  local status = block.status or "pending"
  local icon = M.STATUS_ICONS[status] or "•"
  return ("%s %s [%s]"):format(icon, block.title or block.id or "tool", status)
end

---The buffer lines for one block, the blank separator line included.
---@param block agent_lsp.Block
---@return string[]
function M.lines(block)
  local out = {} ---@type string[]
  local kind = block.kind
  if kind == "user" then
    out[1] = "## You"
    vim.list_extend(out, block.lines)
  elseif kind == "header" or kind == "agent" then
    vim.list_extend(out, block.lines)
  elseif kind == "thought" then
    for i, line in ipairs(block.lines) do
      out[i] = M.THOUGHT_PREFIX .. line
    end
  elseif kind == "tool" then
    out[1] = M.tool_line(block)
    for _, step in ipairs(block.steps or {}) do
      out[#out + 1] = M.STEP_PREFIX .. step
    end
    if block.detail and block.detail ~= "" then
      out[#out + 1] = "  " .. vim.split(block.detail, "\n", { plain = true })[1]
    end
  elseif kind == "plan" then
    out[1] = "**Plan**"
    for _, entry in ipairs(block.entries or {}) do
      out[#out + 1] = ("- %s %s"):format(M.PLAN_MARKS[entry.status] or "[ ]", entry.content)
    end
  elseif kind == "notice" then
    for _, line in ipairs(block.lines) do
      out[#out + 1] = "_" .. line .. "_"
    end
  end
  out[#out + 1] = ""
  return out
end

---The text of an ACP content block list (tool call content), for a one-line detail.
---@param content table[]?
---@return string?
function M.content_text(content)
  for _, item in ipairs(content or {}) do
    if item.type == "content" and type(item.content) == "table" and item.content.type == "text" then
      return item.content.text
    end
  end
  return nil
end

---A subagent's steps: the lines of its call's first content block (sent as a fenced code block).
---@param content table[]?
---@return string[]
function M.step_lines(content)
  local text = M.content_text({ (content or {})[1] }) or ""
  local out = {} ---@type string[]
  for _, line in ipairs(vim.split(text, "\n", { plain = true })) do
    if line:match("%S") and not line:match("^```") then
      out[#out + 1] = line
    end
  end
  return out
end

return M
