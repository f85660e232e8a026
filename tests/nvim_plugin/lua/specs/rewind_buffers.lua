--- Spec (issue #41): the agent edits app.py (open in a window) and util.py (a buffer it loaded, shown in no window);
--- a second message goes from the prompt with <C-s> (insert mode stays) and an image (named in the chat). A rewind
--- to the first message reloads both buffers from the restored files, the hidden one too; the winbar loses the
--- title and usage of the cut conversation; its undo puts them back and takes the message out of the prompt (so it
--- is not sent twice). A rewind over a buffer with unsaved changes keeps them and names the file; a fork shows the
--- source's title; a revert of a turn reloads the buffers it changes.

local H = require("harness")

local PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

---@param buf integer
---@return string[]
local function lines(buf)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

---@return string
local function winbar()
  return require("agent_lsp.chat.view").winbar()
end

---@param text string
local function rewind_on(text)
  local t = require("agent_lsp.chat.view").transcript()
  local win = vim.fn.bufwinid(t.buf)
  vim.api.nvim_set_current_win(win)
  for i, line in ipairs(lines(t.buf)) do
    if line == text then
      vim.api.nvim_win_set_cursor(win, { i, 0 })
      vim.api.nvim_feedkeys(vim.keycode("\\u"), "mx", false)
      return
    end
  end
  error(text .. " is not in the chat")
end

return function()
  H.setup_endpoint({ approval_mode = "auto_edit" })
  local done = H.record("AgentTurnDone")
  local rewound = H.record("AgentRewind")
  local forked = H.record("AgentFork")
  local notified = {} ---@type string[]
  local notify = vim.notify
  ---@diagnostic disable-next-line: duplicate-set-field
  vim.notify = function(msg, level, opts)
    notified[#notified + 1] = msg
    return notify(msg, level, opts)
  end
  local app, util = H.project .. "/app.py", H.project .. "/util.py"
  vim.cmd.edit(app)
  local app_buf = vim.api.nvim_get_current_buf()
  require("agent_lsp").prompt("edit app and util")
  H.wait(function()
    return #done == 1
  end, "the first turn")
  local util_buf = vim.fn.bufnr(util)
  H.ok(util_buf ~= -1 and vim.api.nvim_buf_is_loaded(util_buf), "the agent loaded util.py into a buffer")
  H.eq(vim.fn.win_findbuf(util_buf), {}, "a buffer no window shows")
  H.eq(lines(util_buf), { "util = 2" }, "util.py's buffer edited")
  H.eq(vim.fn.readfile(util), { "util = 2" }, "and written")
  H.eq(lines(app_buf), { "app = 2" }, "app.py's buffer edited")
  H.contains(winbar(), "edit app and util", "the winbar's title")
  H.contains(winbar(), " tokens (", "the winbar's usage")

  -- The second message: typed in the prompt, sent with <C-s>, with an image attached.
  local png = H.project .. "/dot.png"
  local file = assert(io.open(png, "wb"))
  file:write(vim.base64.decode(PNG))
  file:close()
  vim.cmd("AgentAttach " .. png)
  vim.cmd("AgentChat")
  vim.cmd.stopinsert()
  local view = require("agent_lsp.chat.view")
  local _, pwin = view.windows()
  vim.api.nvim_set_current_win(assert(pwin))
  -- <Cmd> runs in insert mode without leaving it: it records the mode <C-s> left the prompt in.
  local keys = "isay hi<C-s><Cmd>lua vim.g.agent_mode_after = vim.api.nvim_get_mode().mode<CR><Esc>"
  vim.api.nvim_feedkeys(vim.keycode(keys), "mx", false)
  H.eq(vim.g.agent_mode_after, "i", "insert mode after <C-s>")
  H.wait(function()
    return #done == 2
  end, "the second turn")
  H.contains(H.chat_text(), "## You\nsay hi\n📎 dot.png (1 KB)", "the You message names the image")

  -- Rewind to before the first message: both buffers follow the disk, the hidden one too.
  H.stub_select(H.pick("Rewind"))
  rewind_on("edit app and util")
  H.wait(function()
    return #rewound == 1
  end, "the rewind")
  H.eq(vim.fn.readfile(util), { "util = 1" }, "util.py restored on disk")
  H.eq(lines(util_buf), { "util = 1" }, "util.py's hidden buffer reloaded")
  H.eq(lines(app_buf), { "app = 1" }, "app.py's buffer reloaded")
  H.ok(not vim.bo[util_buf].modified and not vim.bo[app_buf].modified, "nothing left unsaved")
  H.eq(lines(view.prompt_buf()), { "edit app and util" }, "the message in the prompt")
  H.contains(winbar(), "new session", "no title for an empty conversation")
  H.ok(not winbar():find("tokens", 1, true), "no usage for an empty conversation: " .. winbar())

  -- Its undo: the buffers, the title and usage come back; the message leaves the prompt.
  vim.cmd("AgentRewind undo")
  H.wait(function()
    return #rewound == 2
  end, "the undo")
  H.eq(lines(util_buf), { "util = 2" }, "util.py's hidden buffer after the undo")
  H.eq(lines(app_buf), { "app = 2" }, "app.py's buffer after the undo")
  H.eq(lines(view.prompt_buf()), { "" }, "the prompt is empty again (nothing to send twice)")
  H.contains(winbar(), "edit app and util", "the title back")
  H.contains(winbar(), " tokens (", "the usage back")

  -- Unsaved changes of the user's in the hidden buffer: kept, named, never overwritten.
  vim.api.nvim_buf_set_lines(util_buf, 0, -1, false, { "util = mine" })
  vim.cmd("AgentRewind 0")
  H.wait(function()
    return #rewound == 3
  end, "the rewind over unsaved changes")
  H.eq(vim.fn.readfile(util), { "util = 1" }, "util.py restored on disk")
  H.eq(lines(util_buf), { "util = mine" }, "the user's unsaved text kept")
  H.ok(vim.bo[util_buf].modified, "still unsaved")
  H.contains(table.concat(notified, "\n"), "kept your unsaved changes in util.py", "and said so")
  H.eq(lines(app_buf), { "app = 1" }, "app.py's buffer reloaded")
  vim.cmd("AgentRewind undo")
  H.wait(function()
    return #rewound == 4
  end, "the second undo")
  H.eq(lines(util_buf), { "util = mine" }, "the user's text still kept")
  H.eq(lines(app_buf), { "app = 2" }, "app.py's buffer after the second undo")

  -- A fork from the second message: the fork's winbar has the title and usage of what it holds.
  vim.api.nvim_buf_set_lines(util_buf, 0, -1, false, { "util = 2" })
  vim.bo[util_buf].modified = false
  vim.cmd("AgentFork 1")
  H.wait(function()
    return #forked == 1
  end, "the fork")
  H.contains(winbar(), "edit app and util", "the fork's title")
  H.contains(winbar(), " tokens (", "the fork's usage")

  -- A revert of the fork's first turn: its files back, the hidden buffer reloaded too.
  local reverted = H.record("AgentRevert")
  vim.cmd("AgentRewind revert 0")
  H.wait(function()
    return #reverted == 1
  end, "the revert")
  H.eq(vim.fn.readfile(util), { "util = 1" }, "util.py reverted on disk")
  H.eq(lines(util_buf), { "util = 1" }, "util.py's hidden buffer reloaded")
  H.eq(lines(app_buf), { "app = 1" }, "app.py's buffer reloaded")
end
