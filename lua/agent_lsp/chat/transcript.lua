--- The chat transcript: a list of blocks kept in sync with a buffer, redrawing only what an update changed.

local render = require("agent_lsp.chat.render")

local M = {}

---@class agent_lsp.Transcript
---@field buf integer
---@field blocks agent_lsp.Block[]
---@field rendered string[][] The lines each block has in the buffer now
---@field tools table<string, integer> Tool call id → block index
---@field plan integer? This turn's plan block
local Transcript = {}
Transcript.__index = Transcript

---@param buf integer
---@return agent_lsp.Transcript
function M.new(buf)
  local self = setmetatable({ buf = buf, blocks = {}, rendered = {}, tools = {}, plan = nil }, Transcript)
  return self
end

---@param fn fun()
function Transcript:_write(fn)
  if not vim.api.nvim_buf_is_valid(self.buf) then
    return
  end
  -- Windows whose cursor sits on the last line follow the stream; others stay where the user put them.
  local last = vim.api.nvim_buf_line_count(self.buf)
  local following = {} ---@type integer[]
  for _, win in ipairs(vim.fn.win_findbuf(self.buf)) do
    if vim.api.nvim_win_get_cursor(win)[1] >= last - 1 then
      following[#following + 1] = win
    end
  end
  vim.bo[self.buf].modifiable = true
  fn()
  vim.bo[self.buf].modifiable = false
  vim.bo[self.buf].modified = false
  local count = vim.api.nvim_buf_line_count(self.buf)
  for _, win in ipairs(following) do
    vim.api.nvim_win_set_cursor(win, { count, 0 })
  end
end

---@param index integer
---@return integer
function Transcript:_offset(index)
  local offset = 0
  for i = 1, index - 1 do
    offset = offset + #self.rendered[i]
  end
  return offset
end

---Bring block `index` up to date in the buffer, rewriting only from its first changed line.
---@param index integer
function Transcript:_redraw(index)
  local new = render.lines(self.blocks[index])
  local old = self.rendered[index] or {}
  local first = 1
  while first <= #old and first <= #new and old[first] == new[first] do
    first = first + 1
  end
  if first > #old and first > #new then
    return
  end
  local start = self:_offset(index)
  self:_write(function()
    vim.api.nvim_buf_set_lines(self.buf, start + first - 1, start + #old, false, vim.list_slice(new, first))
  end)
  self.rendered[index] = new
end

---@param block agent_lsp.Block
---@return integer index
function Transcript:_push(block)
  self.blocks[#self.blocks + 1] = block
  self.rendered[#self.blocks] = {}
  self:_redraw(#self.blocks)
  return #self.blocks
end

function Transcript:clear()
  self.blocks, self.rendered, self.tools, self.plan = {}, {}, {}, nil
  self:_write(function()
    vim.api.nvim_buf_set_lines(self.buf, 0, -1, false, {})
  end)
end

---A new user turn: the user's message and the header the answer streams under.
---@param text string
function Transcript:add_user(text)
  self.plan = nil
  self:_push({ kind = "user", lines = vim.split(text, "\n", { plain = true }) })
  self:_push({ kind = "header", lines = { "## Agent" } })
end

---Which user message (1 first) the transcript line `line` belongs to; nil above the first.
---@param line integer
---@return integer?
function Transcript:user_at(line)
  local users, seen = 0, 0
  for i, block in ipairs(self.blocks) do
    if block.kind == "user" then
      users = users + 1
    end
    seen = seen + #self.rendered[i]
    if seen >= line then
      return users > 0 and users or nil
    end
  end
  return users > 0 and users or nil
end

---Drop user message `n` (1 first) and everything after it: the chat after a rewind.
---@param n integer
---@return agent_lsp.Block[] removed What was dropped, for put_back (an undone rewind)
function Transcript:cut_at_user(n)
  local users = 0
  for i, block in ipairs(self.blocks) do
    if block.kind == "user" then
      users = users + 1
      if users == n then
        local start = self:_offset(i)
        local removed = vim.list_slice(self.blocks, i)
        for j = #self.blocks, i, -1 do
          self.blocks[j], self.rendered[j] = nil, nil
        end
        self.tools, self.plan = {}, nil
        self:_write(function()
          vim.api.nvim_buf_set_lines(self.buf, start, -1, false, {})
        end)
        return removed
      end
    end
  end
  return {}
end

---Append blocks a rewind dropped (its undo).
---@param blocks agent_lsp.Block[]
function Transcript:put_back(blocks)
  for _, block in ipairs(blocks) do
    self:_push(block)
  end
end

---@param text string
function Transcript:notice(text)
  self:_push({ kind = "notice", lines = vim.split(text, "\n", { plain = true }) })
end

---Stream text into the last block when it is of the same kind, else into a new one.
---@param kind "agent"|"thought"
---@param text string
function Transcript:_stream(kind, text)
  local last = self.blocks[#self.blocks]
  if last and last.kind == kind then
    render.append_text(last.lines, text)
    self:_redraw(#self.blocks)
  else
    local block = { kind = kind, lines = {} } ---@type agent_lsp.Block
    render.append_text(block.lines, text)
    self:_push(block)
  end
end

---@param content table?
---@return string
local function content_text(content)
  if type(content) ~= "table" then
    return ""
  end
  if content.type == "text" then
    return content.text or ""
  elseif content.type == "resource_link" then
    return ("[%s](%s)"):format(content.name or content.uri, content.uri)
  end
  return ("[%s]"):format(content.type or "content")
end

---@param update table An ACP session/update payload
function Transcript:_tool(update)
  local index = self.tools[update.toolCallId]
  local block = index and self.blocks[index]
  if not block then
    block = { kind = "tool", lines = {}, id = update.toolCallId, status = "pending" }
    index = self:_push(block)
    self.tools[update.toolCallId] = index
  end
  block.title = update.title or block.title
  block.status = update.status or block.status
  block.tool_kind = update.kind or block.tool_kind
  local meta = type(update._meta) == "table" and update._meta["agent-lsp"] or nil
  block.subagent = type(meta) == "table" and meta.subagent or block.subagent
  local content = update.content
  if block.subagent and type(content) == "table" and #content > 0 then
    block.steps = render.step_lines(content) -- its first block; what follows is its report or error
    content = vim.list_slice(content, 2)
  end
  if block.status == "failed" then
    block.detail = render.content_text(content) or block.detail
  end
  self:_redraw(index)
end

---Apply one agent/update payload. Returns false for kinds the transcript does not show.
---@param update table
---@return boolean
function Transcript:apply(update)
  local kind = update.sessionUpdate
  if kind == "agent_message_chunk" then
    self:_stream("agent", content_text(update.content))
  elseif kind == "agent_thought_chunk" then
    self:_stream("thought", content_text(update.content))
  elseif kind == "user_message_chunk" then
    local n = #self.blocks
    local user = n >= 2 and self.blocks[n].kind == "header" and self.blocks[n - 1] or nil
    if user and user.kind == "user" then
      render.append_text(user.lines, content_text(update.content))
      self:_redraw(n - 1)
    else
      self:add_user(content_text(update.content))
    end
  elseif kind == "tool_call" or kind == "tool_call_update" then
    self:_tool(update)
  elseif kind == "plan" then
    if self.plan and self.blocks[self.plan] then
      self.blocks[self.plan].entries = update.entries or {}
      self:_redraw(self.plan)
    else
      self.plan = self:_push({ kind = "plan", lines = {}, entries = update.entries or {} })
    end
  elseif kind == "notice" then
    self:notice(update.title or update.message or "")
  else
    return false
  end
  return true
end

---The whole transcript as text (what the buffer shows).
---@return string
function Transcript:text()
  return table.concat(vim.api.nvim_buf_get_lines(self.buf, 0, -1, false), "\n")
end

M.Transcript = Transcript
return M
