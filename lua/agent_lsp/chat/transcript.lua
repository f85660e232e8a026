--- The chat transcript: a list of blocks kept in sync with a buffer, redrawing only what an update changed.

local render = require("agent_lsp.chat.render")

local M = {}

---@class agent_lsp.Transcript
---@field buf integer
---@field blocks agent_lsp.Block[]
---@field rendered string[][] The lines each block has in the buffer now
---@field tools table<string, integer> Tool call id → block index
---@field plan integer? This turn's plan block
---@field compactions table<string, integer> compactionId → block index
local Transcript = {}
Transcript.__index = Transcript

---@param buf integer
---@return agent_lsp.Transcript
function M.new(buf)
  local self = setmetatable({ buf = buf, blocks = {}, rendered = {}, tools = {}, compactions = {} }, Transcript)
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
  self.blocks, self.rendered, self.tools, self.compactions, self.plan = {}, {}, {}, {}, nil
  self:_write(function()
    vim.api.nvim_buf_set_lines(self.buf, 0, -1, false, {})
  end)
end

---A new user turn: the user's message (with what was attached to it) and the header the answer streams under.
---@param text string
---@param attached string[]? Names of what went with the text (images, the editor's selection)
---@param message_id string?
function Transcript:add_user(text, attached, message_id)
  self.plan, self.tools = nil, {} -- a turn's tool call ids are its own (a model may use one again later)
  local lines = vim.split(text, "\n", { plain = true })
  self:_push({ kind = "user", lines = lines, attached = attached, message_id = message_id })
  self:_push({ kind = "header", lines = { "## Agent" } })
end

---A message sent into the running turn: shown where it went in, the turn's answer going on under it.
---@param text string
---@param attached string[]?
---@param message_id string? The id the server gave it (the steering answer's `_meta["agent-lsp"].messageId`)
function Transcript:add_steered(text, attached, message_id)
  local lines = vim.split(text, "\n", { plain = true })
  self:_push({ kind = "user", lines = lines, attached = attached, steered = true, message_id = message_id })
end

---How many user messages the chat shows.
---@return integer
function Transcript:user_count()
  local n = 0
  for _, block in ipairs(self.blocks) do
    n = n + (block.kind == "user" and 1 or 0)
  end
  return n
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

---User message `n` (1 first) as the chat holds it (its `message_id` names it to the server), or nil.
---@param n integer
---@return agent_lsp.Block?
function Transcript:user_block(n)
  local users = 0
  for _, block in ipairs(self.blocks) do
    users = users + (block.kind == "user" and 1 or 0)
    if block.kind == "user" and users == n then
      return block
    end
  end
  return nil
end

---Which user message (1 first) carries `message_id`; nil when none does.
---@param message_id string
---@return integer?
function Transcript:user_with_id(message_id)
  local users = 0
  for _, block in ipairs(self.blocks) do
    if block.kind == "user" then
      users = users + 1
      if block.message_id == message_id then
        return users
      end
    end
  end
  return nil
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
        self.tools, self.compactions, self.plan = {}, {}, nil
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
    local index = self:_push(block)
    if block.kind == "tool" and block.id then
      self.tools[block.id] = index
    elseif block.kind == "compaction" and block.id then
      self.compactions[block.id] = index
    end
  end
end

---@param text string
function Transcript:notice(text)
  self:_push({ kind = "notice", lines = vim.split(text, "\n", { plain = true }) })
end

---Stream text into the last block when it shows the same message (same kind, and the same messageId when the
---server sends one), else into a new one.
---@param kind "agent"|"thought"
---@param text string
---@param message_id string?
function Transcript:_stream(kind, text, message_id)
  local last = self.blocks[#self.blocks]
  if last and last.kind == kind and (message_id == nil or last.message_id == nil or last.message_id == message_id) then
    render.append_text(last.lines, text)
    last.message_id = last.message_id or message_id
    self:_redraw(#self.blocks)
  else
    local block = { kind = kind, lines = {}, message_id = message_id } ---@type agent_lsp.Block
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
---@return string?
local function first_path(update)
  local loc = type(update.locations) == "table" and update.locations[1] or nil
  if type(loc) == "table" and type(loc.path) == "string" then
    local rel = vim.fn.fnamemodify(loc.path, ":.")
    return vim.fs.normalize(loc.path) == vim.fs.normalize(vim.fn.getcwd()) and "." or rel
  end
  return nil
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
  block.path = first_path(update) or block.path
  local meta = type(update._meta) == "table" and update._meta["agent-lsp"] or nil
  if type(meta) == "table" and type(meta.subagent) == "string" then
    block.subagent = meta.subagent -- a subagent call whose steps come as its first content block
  end
  local content = update.content
  if block.subagent and type(content) == "table" and #content > 0 and not block.children then
    block.steps = render.step_lines(content) -- its first block; what follows is its report or error
    content = vim.list_slice(content, 2)
  end
  if block.status == "failed" then
    block.detail = render.content_text(content) or block.detail
  end
  if type(content) == "table" then
    local skip = block.status == "failed" and block.detail or nil
    block.details, block.added, block.removed = render.tool_details(content, skip)
  end
  self:_redraw(index)
end

---An update of a subagent's own session (`_meta["agent-lsp"].subagent` = {parentToolCallId, agent, childSessionId}):
---shown nested under the parent's call, one step line per tool call and per message. False when the parent call is
---not in the chat (the update is then shown as any other).
---@param update table
---@param origin table
---@return boolean
function Transcript:_nested(update, origin)
  local index = self.tools[origin.parentToolCallId]
  local parent = index and self.blocks[index]
  if not parent then
    return false
  end
  parent.subagent = parent.subagent or origin.agent
  parent.steps = parent.steps or {}
  parent.children = parent.children or {}
  local kind = update.sessionUpdate
  if kind == "tool_call" or kind == "tool_call_update" then
    local key = "tool:" .. tostring(update.toolCallId)
    local at = parent.children[key]
    local child = at and parent.children[key .. ":block"] or { kind = "tool", lines = {}, id = update.toolCallId }
    child.title = update.title or child.title
    child.status = update.status or child.status or "pending"
    child.tool_kind = update.kind or child.tool_kind
    child.path = first_path(update) or child.path
    if child.status == "failed" then
      child.detail = render.content_text(update.content) or child.detail -- why, on its step line as on a call's
    end
    if type(update.content) == "table" then
      local _, added, removed = render.tool_details(update.content)
      child.added, child.removed = added, removed
    end
    at = at or #parent.steps + 1
    parent.children[key], parent.children[key .. ":block"] = at, child
    parent.steps[at] = render.tool_line(child)
  elseif kind == "agent_message_chunk" or kind == "agent_thought_chunk" then
    local key = "message:" .. tostring(update.messageId or kind)
    local at = parent.children[key]
    local text = (at and parent.children[key .. ":text"] or "") .. content_text(update.content)
    at = at or #parent.steps + 1
    parent.children[key], parent.children[key .. ":text"] = at, text
    local first = (vim.split(vim.trim(text), "\n", { plain = true })[1] or ""):gsub("^%*%*(.-)%*%*$", "%1")
    parent.steps[at] = (kind == "agent_thought_chunk" and "💭 " or "") .. first -- a thought by its subject
  else
    return true -- plans, usage and the like of the child: not shown in the parent's chat
  end
  self:_redraw(index)
  return true
end

---A compaction's lifecycle: one item, updated in place, its summary folded under it.
---@param update table
function Transcript:_compaction(update)
  local id = tostring(update.compactionId or "compaction")
  local index = self.compactions[id]
  local block = index and self.blocks[index]
  if not block then
    block = { kind = "compaction", lines = {}, id = id }
    index = self:_push(block)
    self.compactions[id] = index
  end
  block.status = update.status or block.status
  block.error = type(update.error) == "string" and update.error or block.error
  if type(update.summary) == "table" then
    local text = {}
    for _, item in ipairs(update.summary) do
      text[#text + 1] = content_text(item)
    end
    block.summary = vim.split(vim.trim(table.concat(text)), "\n", { plain = true })
  end
  local meta = type(update._meta) == "table" and update._meta["agent-lsp"] or nil
  if type(meta) == "table" then
    block.tokens = { before = tonumber(meta.tokensBefore), after = tonumber(meta.tokensAfter) }
  end
  self:_redraw(index)
end

---Apply one agent/update payload. Returns false for kinds the transcript does not show.
---@param update table
---@return boolean
function Transcript:apply(update)
  local kind = update.sessionUpdate
  local meta = type(update._meta) == "table" and update._meta["agent-lsp"] or nil
  local origin = type(meta) == "table" and type(meta.subagent) == "table" and meta.subagent or nil
  if origin and type(origin.parentToolCallId) == "string" and self:_nested(update, origin) then
    return true
  end
  local id = type(update.messageId) == "string" and update.messageId or nil
  if kind == "agent_message_chunk" then
    self:_stream("agent", content_text(update.content), id)
  elseif kind == "agent_thought_chunk" then
    self:_stream("thought", content_text(update.content), id)
  elseif kind == "user_message_chunk" then
    -- A replayed message that went into a running turn (_meta["agent-lsp"].steered) has no header of its own.
    local steered = type(meta) == "table" and meta.steered == true
    local n = #self.blocks
    local at = steered and n or n - 1
    local user = (steered or (n >= 2 and self.blocks[n].kind == "header")) and self.blocks[at] or nil
    local same = user and user.kind == "user" and (user.steered == true) == steered
    same = same and (id == nil or user.message_id == nil or user.message_id == id)
    if user and same then
      render.append_text(user.lines, content_text(update.content))
      user.message_id = user.message_id or id
      self:_redraw(at)
    elseif steered then
      self:add_steered(content_text(update.content), nil, id)
    else
      self:add_user(content_text(update.content), nil, id)
    end
  elseif kind == "tool_call" or kind == "tool_call_update" then
    self:_tool(update)
  elseif kind == "compaction_update" then
    self:_compaction(update)
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
