--- Inline review of a proposed edit in the file's own buffer: hunks drawn with extmarks, a choice per hunk.
---
--- The buffer keeps what it held when the agent proposed (that is what the server checks its edit against):
--- the lines a hunk removes are highlighted, the lines it adds are virtual lines below them. Every hunk is
--- accepted or rejected; the last choice answers the server once, with the resulting text when it is not the
--- proposal as sent, and the server applies it as one edit (one undo).

local config = require("agent_lsp.config")
local hunks_mod = require("agent_lsp.inline_hunks")
local keymaps = require("agent_lsp.keymaps")

local M = {}

local ns = vim.api.nvim_create_namespace("agent_lsp_inline")

---@class agent_lsp.InlineReview
---@field buf integer
---@field old_text string
---@field new_text string
---@field hunks agent_lsp.InlineHunk[]
---@field decisions table<integer, "accept"|"reject">
---@field done fun(decision: agent_lsp.ReviewDecision, modified: string?)
---@field open_tab fun()?
---@field restore fun()
---@field closed boolean

---@type table<integer, agent_lsp.InlineReview>
local reviews = {}

for group, link in pairs({
  AgentLspInlineRemoved = "DiffDelete",
  AgentLspInlineAdded = "DiffAdd",
  AgentLspInlineHint = "Comment",
  AgentLspInlineAccepted = "DiagnosticOk",
  AgentLspInlineRejected = "DiagnosticWarn",
}) do
  vim.api.nvim_set_hl(0, group, { link = link, default = true })
end

---The 0-based line a hunk is shown and chosen on.
---@param h agent_lsp.InlineHunk
---@return integer
local function anchor(h)
  if h.a_count > 0 then
    return h.a_start
  end
  return math.max(h.a_start - 1, 0)
end

---@param h agent_lsp.InlineHunk
---@return integer first, integer last 0-based lines the cursor can be on to mean this hunk
local function span(h)
  local first = anchor(h)
  return first, math.max(first, h.a_start + h.a_count - 1)
end

---@param r agent_lsp.InlineReview
---@return integer open
local function open_count(r)
  local open = 0
  for i = 1, #r.hunks do
    if not r.decisions[i] then
      open = open + 1
    end
  end
  return open
end

---@param r agent_lsp.InlineReview
local function draw(r)
  vim.api.nvim_buf_clear_namespace(r.buf, ns, 0, -1)
  local keys = config.options.keymaps
  local shown = require("agent_lsp.diff").shown_key
  local last = vim.api.nvim_buf_line_count(r.buf) - 1
  for i, h in ipairs(r.hunks) do
    local row = math.min(anchor(h), last)
    local label = ("hunk %d/%d"):format(i, #r.hunks)
    local decision = r.decisions[i]
    if decision == "reject" then
      local text = ("  ✗ %s rejected: stays as it is"):format(label)
      vim.api.nvim_buf_set_extmark(r.buf, ns, row, 0, { virt_text = { { text, "AgentLspInlineRejected" } } })
    else
      -- Open and accepted hunks both show the change, so what will land stays visible.
      for line = h.a_start, math.min(h.a_start + h.a_count - 1, last) do
        vim.api.nvim_buf_set_extmark(r.buf, ns, line, 0, {
          line_hl_group = "AgentLspInlineRemoved",
          sign_text = "-",
          sign_hl_group = "AgentLspInlineRemoved",
        })
      end
      local virt = {} ---@type table[]
      for _, added in ipairs(h.added) do
        virt[#virt + 1] = { { "+ " .. added, "AgentLspInlineAdded" } }
      end
      local hint = ("  %s · %s accept · %s reject · %s/%s move"):format(
        label,
        shown(keys.accept),
        shown(keys.reject),
        shown(keys.hunk_next),
        shown(keys.hunk_prev)
      )
      local hint_hl = "AgentLspInlineHint"
      if decision == "accept" then
        hint, hint_hl = ("  ✓ %s accepted"):format(label), "AgentLspInlineAccepted"
      end
      local at_top = h.a_start == 0 and h.a_count == 0
      local below = h.a_count > 0 and h.a_start + h.a_count - 1 or h.a_start - 1
      vim.api.nvim_buf_set_extmark(r.buf, ns, at_top and 0 or math.min(below, last), 0, {
        virt_lines = #virt > 0 and virt or nil,
        virt_lines_above = at_top,
      })
      vim.api.nvim_buf_set_extmark(r.buf, ns, row, 0, { virt_text = { { hint, hint_hl } } })
    end
  end
end

---@param r agent_lsp.InlineReview
local function close(r)
  if r.closed then
    return
  end
  r.closed = true
  reviews[r.buf] = nil
  if vim.api.nvim_buf_is_valid(r.buf) then
    vim.api.nvim_buf_clear_namespace(r.buf, ns, 0, -1)
  end
  r.restore()
end

---@param r agent_lsp.InlineReview
local function finish(r)
  close(r)
  local taken = false
  for i = 1, #r.hunks do
    taken = taken or r.decisions[i] == "accept"
  end
  if not taken then
    return r.done("reject", nil)
  end
  local result = hunks_mod.compose(r.old_text, r.hunks, r.decisions)
  r.done("accept", result ~= r.new_text and result or nil)
end

---@param r agent_lsp.InlineReview
---@param row integer 0-based
local function goto_row(r, row)
  local win = vim.fn.bufwinid(r.buf)
  if win ~= -1 then
    vim.api.nvim_win_set_cursor(win, { row + 1, 0 })
  end
end

---The review of the current buffer, or nil with a message.
---@return agent_lsp.InlineReview?
local function current()
  local r = reviews[vim.api.nvim_get_current_buf()]
  if not r then
    vim.notify("agent-lsp: no inline review in this buffer", vim.log.levels.INFO)
  end
  return r
end

---@param r agent_lsp.InlineReview
---@return integer? index of the hunk under the cursor
local function hunk_at_cursor(r)
  local row = vim.api.nvim_win_get_cursor(0)[1] - 1
  for i, h in ipairs(r.hunks) do
    local first, last = span(h)
    if row >= first and row <= last then
      return i
    end
  end
  return nil
end

---@param decision "accept"|"reject"
local function decide(decision)
  local r = current()
  if not r then
    return
  end
  local i = hunk_at_cursor(r)
  if not i then
    vim.notify("agent-lsp: no hunk under the cursor (]h / [h move to one)", vim.log.levels.INFO)
    return
  end
  r.decisions[i] = decision
  if open_count(r) == 0 then
    return finish(r)
  end
  draw(r)
  -- On to the next hunk still open, wrapping around.
  for step = 1, #r.hunks do
    local j = (i - 1 + step) % #r.hunks + 1
    if not r.decisions[j] then
      return goto_row(r, anchor(r.hunks[j]))
    end
  end
end

function M.accept_hunk()
  decide("accept")
end

function M.reject_hunk()
  decide("reject")
end

---@param decision "accept"|"reject"
local function decide_rest(decision)
  local r = current()
  if not r then
    return
  end
  for i = 1, #r.hunks do
    r.decisions[i] = r.decisions[i] or decision
  end
  finish(r)
end

---Every hunk still open is accepted, and the edit answered.
function M.accept_all()
  decide_rest("accept")
end

---Every hunk still open is rejected, and the edit answered.
function M.reject_all()
  decide_rest("reject")
end

---@param step 1|-1
local function move(step)
  local r = current()
  if not r then
    return
  end
  local row = vim.api.nvim_win_get_cursor(0)[1] - 1
  local rows = vim.tbl_map(anchor, r.hunks)
  local target = nil ---@type integer?
  for k = step == 1 and 1 or #rows, step == 1 and #rows or 1, step do
    if (step == 1 and rows[k] > row) or (step == -1 and rows[k] < row) then
      target = rows[k]
      break
    end
  end
  goto_row(r, target or rows[step == 1 and 1 or #rows])
end

function M.next_hunk()
  move(1)
end

function M.prev_hunk()
  move(-1)
end

---Leaves the inline review for the diff tab (the whole proposal beside the file, editable there).
function M.open_diff()
  local r = current()
  if not r or not r.open_tab then
    return
  end
  close(r)
  r.open_tab()
end

---Buffer-local normal-mode mappings, put back as they were afterwards; a global mapping of the same key is
---shadowed only during the review, and the user is told so once.
---@param buf integer
---@param maps table<string, fun()>
---@return fun() restore
local function map_temporarily(buf, maps)
  return keymaps.map_temporarily(buf, maps, "agent-lsp inline review", function(lhs)
    if not M._warned then
      M._warned = true
      vim.notify(("agent-lsp: %s is your mapping; during an inline review it acts on hunks"):format(lhs))
    end
  end)
end

---The loaded buffer of an existing file, or nil.
---@param path string
---@return integer?
local function file_buffer(path)
  if not vim.uv.fs_stat(path) then
    return nil
  end
  local buf = vim.fn.bufadd(path)
  vim.fn.bufload(buf)
  vim.bo[buf].buflisted = true
  return buf
end

---Open the inline review in the file's buffer. `done` is called once, as for the diff tab; `open_tab` opens
---the diff tab instead (the review hands over to it). Returns nil when the edit cannot be reviewed inline: a
---new file, or a buffer that no longer holds what the agent read.
---@param opts agent_lsp.ReviewOpts
---@param done fun(decision: agent_lsp.ReviewDecision, modified: string?)
---@param open_tab fun()?
---@return { close: fun(), buf: integer }?
function M.review(opts, done, open_tab)
  if type(opts.old_text) ~= "string" then
    return nil
  end
  local buf = file_buffer(opts.path)
  if not buf or reviews[buf] then
    return nil
  end
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  if vim.bo[buf].eol and vim.api.nvim_buf_line_count(buf) > 0 and text ~= "" then
    text = text .. "\n"
  end
  if text ~= opts.old_text then
    return nil
  end
  local hunks = hunks_mod.hunks(opts.old_text, opts.new_text)
  if #hunks == 0 then
    return nil
  end
  local keys = config.options.keymaps
  ---@type agent_lsp.InlineReview
  local r = {
    buf = buf,
    old_text = opts.old_text,
    new_text = opts.new_text,
    hunks = hunks,
    decisions = {},
    done = done,
    open_tab = open_tab,
    restore = function() end,
    closed = false,
  }
  reviews[buf] = r
  r.restore = map_temporarily(buf, {
    [keys.accept] = M.accept_hunk,
    [keys.reject] = M.reject_hunk,
    [keys.accept_all] = M.accept_all,
    [keys.reject_all] = M.reject_all,
    [keys.hunk_next] = M.next_hunk,
    [keys.hunk_prev] = M.prev_hunk,
    [keys.open_diff] = M.open_diff,
  })
  -- Typing in the file moves the review to the diff tab: the hunks no longer fit the buffer.
  vim.api.nvim_buf_attach(buf, false, {
    on_lines = function()
      if r.closed then
        return true
      end
      vim.schedule(function()
        if r.closed then
          return
        end
        close(r)
        local msg = "agent-lsp: the file changed during the inline review; review it in the diff tab"
        vim.notify(msg, vim.log.levels.WARN)
        if r.open_tab then
          r.open_tab()
        else
          r.done(nil, nil)
        end
      end)
      return true
    end,
  })
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.api.nvim_win_set_buf(0, buf)
  else
    vim.api.nvim_set_current_win(win)
  end
  draw(r)
  goto_row(r, anchor(hunks[1]))
  return {
    close = function()
      if not r.closed then
        close(r)
        done(nil, nil)
      end
    end,
    buf = buf,
  }
end

---The inline review open in `buf`, for statuslines and tests.
---@param buf integer
---@return { hunks: agent_lsp.InlineHunk[], decisions: table<integer, string> }?
function M.get(buf)
  return reviews[buf]
end

M.namespace = ns

return M
