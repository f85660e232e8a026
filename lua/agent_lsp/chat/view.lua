--- The chat split: a read-only transcript window above a small prompt window, with their keymaps.

local config = require("agent_lsp.config")
local render = require("agent_lsp.chat.render")
local transcript_mod = require("agent_lsp.chat.transcript")

local M = {}

---@class agent_lsp.ChatState
---@field transcript agent_lsp.Transcript?
---@field prompt_buf integer?
---@field status string Shown in the transcript's winbar
local state = { transcript = nil, prompt_buf = nil, status = "" }

---@param name string
---@param filetype string
---@return integer
local function scratch(name, filetype)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, name)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = filetype
  return buf
end

---@param buf integer
local function map_common(buf)
  local keys = config.options.keymaps
  vim.keymap.set("n", keys.cancel, function()
    require("agent_lsp.turns").cancel()
  end, { buffer = buf, desc = "Cancel the agent's turn" })
  vim.keymap.set("n", keys.close, M.close, { buffer = buf, desc = "Close the agent chat" })
end

---The transcript, its buffer created on first use.
---@return agent_lsp.Transcript
function M.transcript()
  local t = state.transcript
  if t and vim.api.nvim_buf_is_valid(t.buf) then
    return t
  end
  local buf = scratch("agent://chat", "markdown")
  vim.bo[buf].modifiable = false
  map_common(buf)
  local keys = config.options.keymaps
  vim.keymap.set("n", keys.rewind, function()
    require("agent_lsp.rewind").rewind()
  end, { buffer = buf, desc = "Rewind to before the message under the cursor" })
  vim.keymap.set("n", keys.edit, function()
    require("agent_lsp.rewind").edit()
  end, { buffer = buf, desc = "Rewind to before the message under the cursor and edit it in the prompt" })
  vim.keymap.set("n", keys.fork, function()
    require("agent_lsp.rewind").fork()
  end, { buffer = buf, desc = "Fork: a new session with the conversation before the message under the cursor" })
  state.transcript = transcript_mod.new(buf)
  return state.transcript
end

---@return integer
function M.prompt_buf()
  local buf = state.prompt_buf
  if buf and vim.api.nvim_buf_is_valid(buf) then
    return buf
  end
  buf = scratch("agent://prompt", "markdown")
  map_common(buf)
  -- Slash commands (built-in and the user's .toml ones) complete with <C-x><C-o> or a completion plugin.
  vim.bo[buf].omnifunc = "v:lua.require'agent_lsp.chat.complete'.complete"
  vim.bo[buf].completefunc = "v:lua.require'agent_lsp.chat.complete'.complete"
  local keys = config.options.keymaps
  vim.keymap.set("n", keys.submit, M.submit, { buffer = buf, desc = "Send the prompt to the agent" })
  -- Sent from insert mode, the prompt stays in insert mode, empty, for the next message.
  vim.keymap.set("i", keys.submit_insert, M.submit, { buffer = buf, desc = "Send the prompt to the agent" })
  state.prompt_buf = buf
  return buf
end

---@param buf integer
---@return integer?
local function window_of(buf)
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == buf then
      return win
    end
  end
  return nil
end

---@param line string
---@return boolean
local function nested(line)
  return vim.startswith(line, render.STEP_PREFIX) or vim.startswith(line, render.DETAIL_PREFIX)
end

---The transcript's folds: a thought's lines; a tool call's (or a compaction's) line with its steps and details
---under it, so a closed fold is that one line.
---@return string|integer
function M.foldexpr()
  local line = vim.fn.getline(vim.v.lnum)
  if vim.startswith(line, render.THOUGHT_PREFIX) or nested(line) then
    return 1
  end
  return nested(vim.fn.getline(vim.v.lnum + 1)) and ">1" or 0
end

---Fold text: a tool call's line and how much opens under it, or a thought's first line.
---@return string
function M.foldtext()
  local count = vim.v.foldend - vim.v.foldstart + 1
  local line = vim.fn.getline(vim.v.foldstart)
  if not vim.startswith(line, render.THOUGHT_PREFIX) then
    local steps, details = 0, 0
    for lnum = vim.v.foldstart + 1, vim.v.foldend do
      local l = vim.fn.getline(lnum)
      steps = steps + (vim.startswith(l, render.STEP_PREFIX) and 1 or 0)
      details = details + (vim.startswith(l, render.DETAIL_PREFIX) and 1 or 0)
    end
    local what = {}
    if steps > 0 then
      what[#what + 1] = ("%d step%s"):format(steps, steps == 1 and "" or "s")
    end
    if details > 0 then
      what[#what + 1] = ("%d line%s"):format(details, details == 1 and "" or "s")
    end
    return ("%s ▸ %s (zo to open)"):format(line, table.concat(what, ", "))
  end
  local first = line:gsub("^" .. vim.pesc(render.THOUGHT_PREFIX), ""):gsub("^%*%*(.-)%*%*$", "%1") -- its subject
  return ("%s💭 %s (%d line%s, zo to open)"):format(render.THOUGHT_PREFIX, first, count, count == 1 and "" or "s")
end

---@param win integer
local function style_transcript(win)
  local wo = vim.wo[win]
  wo.wrap, wo.linebreak, wo.number, wo.relativenumber, wo.signcolumn = true, true, false, false, "no"
  wo.foldmethod = "expr"
  wo.foldexpr = "v:lua.require'agent_lsp.chat.view'.foldexpr()"
  wo.foldtext = "v:lua.require'agent_lsp.chat.view'.foldtext()"
  wo.foldlevel, wo.foldminlines, wo.foldenable = 0, 0, true
  wo.fillchars = "fold: " -- a closed call reads as its line, not as a row of dots
  vim.api.nvim_win_call(win, function()
    -- A diff opened under its call reads as one: added and removed lines in the theme's colours.
    vim.fn.matchadd("Added", "^" .. render.DETAIL_PREFIX .. "+.*")
    vim.fn.matchadd("Removed", "^" .. render.DETAIL_PREFIX .. "-.*")
  end)
  wo.conceallevel = 2
  wo.winbar = "%{%v:lua.require'agent_lsp.chat.view'.winbar()%}"
end

---@return string
function M.winbar()
  if state.status == "" then
    return "Agent"
  end
  -- %< keeps "Agent" and cuts the title's start when the window is narrow; the state at the end stays in view.
  return "Agent · %<" .. state.status:gsub("%%", "%%%%")
end

---@param status string
function M.set_status(status)
  state.status = status
  vim.cmd.redrawstatus({ bang = true })
end

---@return integer? transcript_win, integer? prompt_win
function M.windows()
  local t = state.transcript
  local twin = t and vim.api.nvim_buf_is_valid(t.buf) and window_of(t.buf) or nil
  local pwin = state.prompt_buf and vim.api.nvim_buf_is_valid(state.prompt_buf) and window_of(state.prompt_buf) or nil
  return twin, pwin
end

---Show the chat in this tab (if it is not shown already); the cursor goes to the prompt unless `stay`.
---@param opts { insert: boolean?, stay: boolean? }?
function M.open(opts)
  opts = opts or {}
  local from = vim.api.nvim_get_current_win()
  local chat = config.options.chat
  local t = M.transcript()
  local pbuf = M.prompt_buf()
  local twin, pwin = M.windows()
  if not twin then
    local split = ({ right = "botright vsplit", left = "topleft vsplit", top = "topleft split" })[chat.position]
      or "botright split"
    vim.cmd(split)
    twin = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(twin, t.buf)
    if chat.position == "left" or chat.position == "right" then
      vim.api.nvim_win_set_width(twin, chat.width)
    else
      vim.api.nvim_win_set_height(twin, chat.height)
    end
    style_transcript(twin)
    vim.api.nvim_win_set_cursor(twin, { vim.api.nvim_buf_line_count(t.buf), 0 })
  end
  if not pwin then
    vim.api.nvim_set_current_win(twin)
    vim.cmd("belowright split")
    pwin = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(pwin, pbuf)
    vim.api.nvim_win_set_height(pwin, chat.prompt_height)
    vim.wo[pwin].winfixheight = true
    vim.wo[pwin].winbar = "Prompt · " .. config.options.keymaps.submit .. " to send"
  end
  if opts.stay then
    vim.api.nvim_set_current_win(from)
    return
  end
  vim.api.nvim_set_current_win(pwin)
  if opts.insert then
    vim.cmd.startinsert()
  end
end

function M.close()
  local twin, pwin = M.windows()
  for _, win in ipairs({ pwin, twin }) do
    if win and vim.api.nvim_win_is_valid(win) and #vim.api.nvim_tabpage_list_wins(0) > 1 then
      vim.api.nvim_win_close(win, false)
    end
  end
end

---Send what the prompt buffer holds and clear it.
function M.submit()
  local buf = M.prompt_buf()
  local text = vim.trim(table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n"))
  if text == "" then
    return
  end
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, {})
  require("agent_lsp.turns").prompt(text)
end

return M
