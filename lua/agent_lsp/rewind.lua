--- :AgentRewind — go back to before one of your messages (agent/rewind): shows what will be restored, then does
--- it, cuts the chat there and puts the message back in the prompt buffer to edit and send again; its undo; and
--- the fork from a message (agent/fork).

local client_mod = require("agent_lsp.client")
local view = require("agent_lsp.chat.view")

local M = {}

---@param title string
---@param paths string[]?
---@return string[]
local function listed(title, paths)
  if not paths or #paths == 0 then
    return {}
  end
  local out = { title }
  for _, p in ipairs(paths) do
    out[#out + 1] = "  " .. p
  end
  return out
end

---What a rewind will do to the files, in words (the dry run's answer).
---@param plan table
---@return string
function M.describe(plan)
  local lines = {}
  vim.list_extend(lines, listed("Restore:", plan.restore))
  vim.list_extend(lines, listed("Remove (the agent created them):", plan.delete))
  vim.list_extend(lines, listed("Keep (you edited them since):", plan.conflicts))
  if #lines == 0 then
    lines = { "No files to restore." }
  end
  return table.concat(lines, "\n")
end

---The blocks of the chat the last rewind removed, put back by `undo` (nil: nothing to undo).
---@type agent_lsp.Block[]?
local cut = nil

---Put `text` in the prompt buffer: always for an edit (the prompt window gets the cursor), and for a rewind only
---when the prompt is empty, so a draft is never lost.
---@param text string
---@param replace boolean
local function to_prompt(text, replace)
  local prompt = view.prompt_buf()
  local current = table.concat(vim.api.nvim_buf_get_lines(prompt, 0, -1, false), "\n")
  if replace or vim.trim(current) == "" then
    vim.api.nvim_buf_set_lines(prompt, 0, -1, false, vim.split(text, "\n", { plain = true }))
  end
  local win = vim.fn.bufwinid(prompt)
  if replace and win ~= -1 then
    vim.api.nvim_set_current_win(win)
  end
end

---@param s agent_lsp.Session
---@param client vim.lsp.Client
---@param index integer
---@param edit boolean Put the message in the prompt (replacing it) to change and send again
local function confirm_and_rewind(s, client, index, edit)
  local params = { sessionId = s.id, messageIndex = index, dryRun = true }
  client_mod.request(client, "agent/rewind", params, function(err, plan)
    if err or type(plan) ~= "table" then
      return client_mod.report("agent/rewind", err or "no result")
    end
    local what = edit and "Edit message %d: rewind to before it?\n%s" or "Rewind to before message %d?\n%s"
    local yes = edit and "Rewind and edit" or "Rewind"
    vim.ui.select({ yes, "Cancel" }, { prompt = what:format(index, M.describe(plan)) }, function(choice)
      if choice ~= yes then
        return
      end
      client_mod.request(client, "agent/rewind", { sessionId = s.id, messageIndex = index }, function(err2, done)
        if err2 or type(done) ~= "table" then
          return client_mod.report("agent/rewind", err2 or "no result")
        end
        cut = view.transcript():cut_at_user(index + 1)
        to_prompt(done.text or "", edit)
        vim.cmd("checktime") -- buffers of restored files reload from disk
        vim.api.nvim_exec_autocmds("User", { pattern = "AgentRewind", data = done, modeline = false })
      end)
    end)
  end)
end

---Call `fn` with the current session, its client and a message index: `index` when given, else the message under
---the cursor in the chat, else one picked from the session's messages.
---@param index integer?
---@param prompt string The picker's title
---@param fn fun(s: agent_lsp.Session, client: vim.lsp.Client, index: integer)
local function with_message(index, prompt, fn)
  local session = require("agent_lsp.session")
  local s = session.current
  local client = s and vim.lsp.get_client_by_id(s.client_id)
  if not s or not client then
    return vim.notify("agent-lsp: no agent session", vim.log.levels.WARN)
  end
  if index == nil then
    local t = view.transcript()
    if vim.api.nvim_get_current_buf() == t.buf then
      local at = t:user_at(vim.api.nvim_win_get_cursor(0)[1])
      index = at and at - 1
    end
  end
  if index ~= nil then
    return fn(s, client, index)
  end
  client_mod.request(client, "agent/rewind", { sessionId = s.id }, function(err, result)
    if err or type(result) ~= "table" then
      return client_mod.report("agent/rewind", err or "no result")
    end
    local messages = vim.tbl_filter(function(m)
      return m.rewindable
    end, result.messages or {})
    vim.ui.select(messages, {
      prompt = prompt,
      format_item = function(m)
        return ("%d: %s"):format(m.index, vim.split(m.text, "\n", { plain = true })[1])
      end,
    }, function(choice)
      if choice then
        fn(s, client, choice.index)
      end
    end)
  end)
end

---Rewind the current session to before message `index` (0 first); nil: the message under the cursor in the chat,
---else a pick from the list of messages. The message goes back in the prompt when that is empty.
---@param index integer?
function M.rewind(index)
  with_message(index, "Rewind to before", function(s, client, i)
    confirm_and_rewind(s, client, i, false)
  end)
end

---Edit message `index` (as `rewind` picks it): rewind to before it and put it in the prompt to change and send.
---@param index integer?
function M.edit(index)
  with_message(index, "Edit message", function(s, client, i)
    confirm_and_rewind(s, client, i, true)
  end)
end

---Put back what the last rewind removed (files and conversation), until the next prompt.
function M.undo()
  local s = require("agent_lsp.session").current
  local client = s and vim.lsp.get_client_by_id(s.client_id)
  if not s or not client then
    return vim.notify("agent-lsp: no agent session", vim.log.levels.WARN)
  end
  client_mod.request(client, "agent/rewind", { sessionId = s.id, undo = true }, function(err, done)
    if err or type(done) ~= "table" then
      return client_mod.report("agent/rewind", err or "no result")
    end
    view.transcript():put_back(cut or {})
    cut = nil
    vim.cmd("checktime")
    vim.api.nvim_exec_autocmds("User", { pattern = "AgentRewind", data = done, modeline = false })
  end)
end

---Fork from message `index` (as `rewind` picks it): a new session holding the conversation before it, which
---becomes the current one, with the message in the prompt. The files are not touched; the source session stays.
---@param index integer?
function M.fork(index)
  with_message(index, "Fork from", function(s, client, i)
    local params = { sessionId = s.id, messageIndex = i, cwd = s.cwd }
    client_mod.request(client, "agent/fork", params, function(err, result)
      if err or type(result) ~= "table" then
        return client_mod.report("agent/fork", err or "no result")
      end
      cut = nil
      require("agent_lsp.session").opened(result.sessionId, client, result)
      to_prompt(result.messageText or "", true)
      vim.api.nvim_exec_autocmds("User", { pattern = "AgentFork", data = result, modeline = false })
    end)
  end)
end

return M
