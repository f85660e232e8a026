--- Pure rendering of chat blocks (messages, thoughts, tool calls, plans) to markdown buffer lines.

---@alias agent_lsp.BlockKind "user"|"header"|"agent"|"thought"|"tool"|"plan"|"notice"|"compaction"

---@class agent_lsp.PlanEntry
---@field content string
---@field status "pending"|"in_progress"|"completed"
---@field priority string?

---@class agent_lsp.Block
---@field kind agent_lsp.BlockKind
---@field lines string[] Text content, one string per line (text kinds)
---@field message_id string? The messageId of the message it shows (user, agent and thought chunks carry one)
---@field attached string[]? What a user message carried besides its text (images, the editor's selection)
---@field steered boolean? A user message sent into the running turn (agent/steer)
---@field id string? Tool call id, or a compaction's compactionId
---@field title string? Tool call title
---@field status string? Tool call or compaction status
---@field tool_kind string? Tool call kind (read, edit, execute, …)
---@field path string? The file a tool call is about (its first location), workspace-relative
---@field added integer? Lines a tool call's diff adds
---@field removed integer? Lines it removes
---@field details string[]? What opens under a tool call's line: diff, output, message (folded)
---@field detail string? A failed tool call's message (its first line stays visible)
---@field subagent string? The subagent a call runs (invoke_agent): its steps fold under the call
---@field steps string[]? That subagent's steps so far
---@field children table<string, any>? A subagent call's nested calls and messages: key → step index (and state)
---@field summary string[]? A compaction's summary (folded under its line)
---@field tokens { before: integer?, after: integer? }? A compaction's token counts
---@field error string? A failed compaction's error
---@field entries agent_lsp.PlanEntry[]? Plan entries

local M = {}

-- Lines of a thought start with this, so the chat window's foldexpr can fold them without extra state.
M.THOUGHT_PREFIX = "┊ "
-- Lines of a subagent's steps, under its call (folded the same way).
M.STEP_PREFIX = "  ┆ "
-- Lines of a tool call's or a compaction's details (diff, output, summary), under its one line (folded).
M.DETAIL_PREFIX = "  │ "
-- How many lines of a tool's output or a diff the details keep (the rest is one "… n more lines").
M.MAX_DETAIL_LINES = 40

M.VERBS = {
  read = "Read",
  edit = "Edit",
  delete = "Delete",
  move = "Move",
  search = "Search",
  execute = "Run",
  think = "Think",
  fetch = "Fetch",
}
M.STATES = { pending = "waiting", in_progress = "running", completed = "done", failed = "failed" }

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

---The one line of a tool call: icon, verb, target, +/− and state ("✓ Edit stats.py +1 −1 · done").
---@param block agent_lsp.Block
---@return string
function M.tool_line(block)
  local status = block.status or "pending"
  local icon = M.STATUS_ICONS[status] or "•"
  local verb = M.VERBS[block.tool_kind or ""]
  local parts = { icon }
  if verb and block.path then
    parts[#parts + 1] = verb .. " " .. block.path
  elseif block.tool_kind == "execute" and block.title then
    parts[#parts + 1] = "Run " .. block.title -- a command's title is the command
  else
    parts[#parts + 1] = block.title or block.id or "tool"
  end
  if (block.added or 0) + (block.removed or 0) > 0 then
    parts[#parts + 1] = ("+%d −%d"):format(block.added or 0, block.removed or 0)
  end
  local state = M.STATES[status] or status
  if status == "failed" and block.detail and block.detail ~= "" then
    state = state .. ": " .. vim.split(block.detail, "\n", { plain = true })[1] -- why, on the line itself
  end
  return table.concat(parts, " ") .. " · " .. state
end

---Lines added and removed between two texts.
---@param old string
---@param new string
---@return integer added, integer removed
function M.diff_counts(old, new)
  local added, removed = 0, 0
  local hunks = vim.diff(old, new, { result_type = "indices" }) --[=[@as integer[][]]=]
  for _, h in ipairs(hunks) do
    removed, added = removed + h[2], added + h[4]
  end
  return added, removed
end

---@param out string[]
---@param lines string[]
local function add_capped(out, lines)
  for i, line in ipairs(lines) do
    if i > M.MAX_DETAIL_LINES then
      out[#out + 1] = ("… %d more lines"):format(#lines - M.MAX_DETAIL_LINES)
      return
    end
    out[#out + 1] = line
  end
end

---A tool call's details from its ACP content: each diff as unified lines; the text blocks as they are, unless a
---diff says it all already ("Updated x (+1 -1)"); `skip` (the failure the call's line shows) left out.
---@param content table[]?
---@param skip string?
---@return string[] details, integer added, integer removed
function M.tool_details(content, skip)
  local out, added, removed = {}, 0, 0
  local has_diff = false
  for _, item in ipairs(content or {}) do
    has_diff = has_diff or (type(item) == "table" and item.type == "diff")
  end
  for _, item in ipairs(content or {}) do
    if type(item) == "table" and item.type == "diff" and type(item.newText) == "string" then
      local old = type(item.oldText) == "string" and item.oldText or ""
      local a, r = M.diff_counts(old, item.newText)
      added, removed = added + a, removed + r
      local unified = vim.diff(old, item.newText, { ctxlen = 1 }) --[=[@as string]=]
      add_capped(out, vim.split(vim.trim(unified), "\n", { plain = true }))
    elseif not has_diff and type(item) == "table" and item.type == "content" and type(item.content) == "table" then
      local text = item.content.type == "text" and item.content.text or ("[" .. tostring(item.content.type) .. "]")
      if skip and text == skip then
        -- the call's line shows its first line; only the rest of a longer failure opens under it
        text = table.concat(vim.list_slice(vim.split(text, "\n", { plain = true }), 2), "\n")
      end
      local lines = vim.tbl_filter(function(l)
        return not l:match("^```")
      end, vim.split(vim.trim(text or ""), "\n", { plain = true }))
      while #lines > 0 and vim.trim(lines[#lines]) == "" do
        lines[#lines] = nil -- an output's final newline
      end
      add_capped(out, lines)
    end
  end
  return out, added, removed
end

---The line of a compaction: what it did, in tokens.
---@param block agent_lsp.Block
---@return string
function M.compaction_line(block)
  if block.status == "failed" then
    return "✗ Compaction failed" .. (block.error and (": " .. block.error) or "")
  elseif block.status ~= "completed" then
    return "◐ Compacting the conversation…"
  end
  local t = block.tokens or {}
  local counts = (t.before and t.after) and (": %d → %d tokens"):format(t.before, t.after) or ""
  return "⇊ Conversation compacted" .. counts
end

---The buffer lines for one block, the blank separator line included.
---@param block agent_lsp.Block
---@return string[]
function M.lines(block)
  local out = {} ---@type string[]
  local kind = block.kind
  if kind == "user" then
    out[1] = block.steered and "## You (into the running turn)" or "## You"
    vim.list_extend(out, block.lines)
    if block.attached and #block.attached > 0 then
      out[#out + 1] = "📎 " .. table.concat(block.attached, ", ")
    end
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
    for _, line in ipairs(block.details or {}) do
      out[#out + 1] = M.DETAIL_PREFIX .. line
    end
  elseif kind == "compaction" then
    out[1] = M.compaction_line(block)
    for _, line in ipairs(block.summary or {}) do
      out[#out + 1] = M.DETAIL_PREFIX .. line
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
