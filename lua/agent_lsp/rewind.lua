--- :AgentRewind — go back to before one of your messages (agent/rewind): shows what will be restored, then does
--- it, cuts the chat there and puts the message back in the prompt buffer to edit and send again; its undo; the
--- revert of one turn's file changes; and the fork from a message (agent/fork). Every buffer of a file they change
--- follows the disk (agent_lsp.buffers).

local buffers = require("agent_lsp.buffers")
local client_mod = require("agent_lsp.client")
local status = require("agent_lsp.chat.status")
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

---What the last rewind removed, put back by `undo` (nil: nothing to undo): the chat's blocks, the files it changed,
---the text it put in the prompt, and the title and usage marks it dropped.
---@type { blocks: agent_lsp.Block[], files: string[], prompt: string?, marks: table }?
local cut = nil

---The files a rewind answer says were restored or removed.
---@param done table
---@return string[]
local function changed_files(done)
  local files = {}
  vim.list_extend(files, type(done.restore) == "table" and done.restore or {})
  vim.list_extend(files, type(done.delete) == "table" and done.delete or {})
  return files
end

---Put `text` in the prompt buffer: always for an edit (the prompt window gets the cursor), and for a rewind only
---when the prompt is empty, so a draft is never lost.
---@param text string
---@param replace boolean
---@return boolean put Whether the text went into the prompt
local function to_prompt(text, replace)
  local prompt = view.prompt_buf()
  local current = table.concat(vim.api.nvim_buf_get_lines(prompt, 0, -1, false), "\n")
  local put = replace or vim.trim(current) == ""
  if put then
    vim.api.nvim_buf_set_lines(prompt, 0, -1, false, vim.split(text, "\n", { plain = true }))
  end
  local win = vim.fn.bufwinid(prompt)
  if replace and win ~= -1 then
    vim.api.nvim_set_current_win(win)
  end
  return put
end

---Empty the prompt when it still holds exactly `text` (an undone rewind's message: sent again it would be there
---twice).
---@param text string?
local function take_back(text)
  local prompt = view.prompt_buf()
  local current = table.concat(vim.api.nvim_buf_get_lines(prompt, 0, -1, false), "\n")
  if text and current == text then
    vim.api.nvim_buf_set_lines(prompt, 0, -1, false, {})
  end
end

---A user message as the server is told of it: by its `messageId` (the id its chunks carried) when the chat has one,
---else by its index among the session's user messages (0 first), the fallback.
---@class agent_lsp.MessageRef
---@field index integer
---@field id string?

---@param ref agent_lsp.MessageRef
---@param extra table
---@return table params agent/rewind's or agent/fork's params naming the message
local function naming(ref, extra)
  return vim.tbl_extend("force", extra, ref.id and { messageId = ref.id } or { messageIndex = ref.index })
end

---The server's index for the message an answer is about (it sends `messageIndex`), else the one asked for.
---@param answer table
---@param ref agent_lsp.MessageRef
---@return integer
local function index_of(answer, ref)
  return type(answer.messageIndex) == "number" and answer.messageIndex or ref.index
end

---@param s agent_lsp.Session
---@param client vim.lsp.Client
---@param ref agent_lsp.MessageRef
---@param edit boolean Put the message in the prompt (replacing it) to change and send again
local function confirm_and_rewind(s, client, ref, edit)
  client_mod.request(client, "agent/rewind", naming(ref, { sessionId = s.id, dryRun = true }), function(err, plan)
    if err or type(plan) ~= "table" then
      return client_mod.report("agent/rewind", err or "no result")
    end
    local index = index_of(plan, ref)
    local what = edit and "Edit message %d: rewind to before it?\n%s" or "Rewind to before message %d?\n%s"
    local yes = edit and "Rewind and edit" or "Rewind"
    vim.ui.select({ yes, "Cancel" }, { prompt = what:format(index, M.describe(plan)) }, function(choice)
      if choice ~= yes then
        return
      end
      client_mod.request(client, "agent/rewind", naming(ref, { sessionId = s.id }), function(err2, done)
        if err2 or type(done) ~= "table" then
          return client_mod.report("agent/rewind", err2 or "no result")
        end
        local files = changed_files(done)
        local t = view.transcript()
        local n = ref.id and t:user_with_id(ref.id) or ref.index + 1 -- the message in the chat (1 first)
        local blocks = t:cut_at_user(n)
        local text = done.text or ""
        local put = to_prompt(text, edit)
        cut = { blocks = blocks, files = files, prompt = put and text or nil, marks = status.back_to(s, n - 1) }
        done.buffers = buffers.follow_disk(files, s.cwd) -- every buffer of a restored file, hidden ones too
        vim.api.nvim_exec_autocmds("User", { pattern = "AgentRewind", data = done, modeline = false })
      end)
    end)
  end)
end

---Call `fn` with the current session, its client and a message: index `index` when given, else the message under
---the cursor in the chat (by its id when the chat has one), else one picked from the session's messages.
---@param index integer?
---@param prompt string The picker's title
---@param fn fun(s: agent_lsp.Session, client: vim.lsp.Client, ref: agent_lsp.MessageRef)
local function with_message(index, prompt, fn)
  local session = require("agent_lsp.session")
  local s = session.current
  local client = s and vim.lsp.get_client_by_id(s.client_id)
  if not s or not client then
    return vim.notify("agent-lsp: no agent session", vim.log.levels.WARN)
  end
  if index ~= nil then
    return fn(s, client, { index = index })
  end
  local t = view.transcript()
  if vim.api.nvim_get_current_buf() == t.buf then
    local at = t:user_at(vim.api.nvim_win_get_cursor(0)[1])
    if at then
      local block = t:user_block(at)
      return fn(s, client, { index = at - 1, id = block and block.message_id or nil })
    end
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
        fn(s, client, { index = choice.index, id = type(choice.messageId) == "string" and choice.messageId or nil })
      end
    end)
  end)
end

---After a turn: the ids of the messages typed here, which the server does not echo (it gives them in its rewind
---listing), put on the chat's messages that have none, so a later rewind or fork names them by id. A message whose
---text in the chat is not the server's (a code action's, say) keeps none and goes by its index.
---@param s agent_lsp.Session
function M.learn_ids(s)
  local client = vim.lsp.get_client_by_id(s.client_id)
  if not client then
    return
  end
  client_mod.request(client, "agent/rewind", { sessionId = s.id }, function(err, result)
    local t = view.transcript()
    if err or type(result) ~= "table" or require("agent_lsp.session").current ~= s then
      return
    end
    for _, m in ipairs(type(result.messages) == "table" and result.messages or {}) do
      local block = type(m.index) == "number" and t:user_block(m.index + 1) or nil
      local same = block and type(m.text) == "string" and vim.trim(table.concat(block.lines, "\n")) == vim.trim(m.text)
      if same and block.message_id == nil and type(m.messageId) == "string" then
        block.message_id = m.messageId
      end
    end
  end)
end

---Rewind the current session to before message `index` (0 first); nil: the message under the cursor in the chat,
---else a pick from the list of messages. The message goes back in the prompt when that is empty.
---@param index integer?
function M.rewind(index)
  with_message(index, "Rewind to before", function(s, client, ref)
    confirm_and_rewind(s, client, ref, false)
  end)
end

---Edit message `index` (as `rewind` picks it): rewind to before it and put it in the prompt to change and send.
---@param index integer?
function M.edit(index)
  with_message(index, "Edit message", function(s, client, ref)
    confirm_and_rewind(s, client, ref, true)
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
    local undone = cut or { blocks = {}, files = {}, marks = nil }
    cut = nil
    view.transcript():put_back(undone.blocks)
    take_back(undone.prompt)
    status.put_back(s, undone.marks)
    done.buffers = buffers.follow_disk(undone.files, s.cwd)
    vim.api.nvim_exec_autocmds("User", { pattern = "AgentRewind", data = done, modeline = false })
  end)
end

---Undo the file changes of message `index`'s turn only (as `rewind` picks it); the conversation stays. Files
---changed since by a later turn or by you are left alone (listed as kept).
---@param index integer?
function M.revert(index)
  with_message(index, "Revert the file changes of", function(s, client, ref)
    local params = naming(ref, { sessionId = s.id, revertTurn = true })
    client_mod.request(client, "agent/rewind", params, function(err, done)
      if err or type(done) ~= "table" then
        return client_mod.report("agent/rewind", err or "no result")
      end
      done.buffers = buffers.follow_disk(changed_files(done), s.cwd)
      local i = index_of(done, ref)
      vim.notify("agent-lsp: reverted message " .. i .. "'s changes\n" .. M.describe(done), vim.log.levels.INFO)
      vim.api.nvim_exec_autocmds("User", { pattern = "AgentRevert", data = done, modeline = false })
    end)
  end)
end

---Fork from message `index` (as `rewind` picks it): a new session holding the conversation before it, which
---becomes the current one, with the message in the prompt. The files are not touched; the source session stays.
---@param index integer?
function M.fork(index)
  with_message(index, "Fork from", function(s, client, ref)
    client_mod.request(client, "agent/fork", naming(ref, { sessionId = s.id, cwd = s.cwd }), function(err, result)
      if err or type(result) ~= "table" then
        return client_mod.report("agent/fork", err or "no result")
      end
      cut = nil
      local fork = require("agent_lsp.session").opened(result.sessionId, client, result)
      status.inherit(fork, s, ref.index) -- its title and usage then (marks count the messages in the chat)
      to_prompt(result.messageText or "", true)
      vim.api.nvim_exec_autocmds("User", { pattern = "AgentFork", data = result, modeline = false })
    end)
  end)
end

return M
