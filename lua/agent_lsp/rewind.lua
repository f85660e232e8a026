--- :AgentRewind — go back to before one of your messages (agent/rewind): shows what will be restored, then does
--- it, cuts the chat there and puts the message back in the prompt buffer to edit and send again.

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

---@param s agent_lsp.Session
---@param client vim.lsp.Client
---@param index integer
local function confirm_and_rewind(s, client, index)
  local params = { sessionId = s.id, messageIndex = index, dryRun = true }
  client_mod.request(client, "agent/rewind", params, function(err, plan)
    if err or type(plan) ~= "table" then
      return client_mod.report("agent/rewind", err or "no result")
    end
    local question = ("Rewind to before message %d?\n%s"):format(index, M.describe(plan))
    vim.ui.select({ "Rewind", "Cancel" }, { prompt = question }, function(choice)
      if choice ~= "Rewind" then
        return
      end
      client_mod.request(client, "agent/rewind", { sessionId = s.id, messageIndex = index }, function(err2, done)
        if err2 or type(done) ~= "table" then
          return client_mod.report("agent/rewind", err2 or "no result")
        end
        view.transcript():cut_at_user(index + 1)
        local prompt = view.prompt_buf()
        vim.api.nvim_buf_set_lines(prompt, 0, -1, false, vim.split(done.text or "", "\n", { plain = true }))
        vim.cmd("checktime") -- buffers of restored files reload from disk
        vim.api.nvim_exec_autocmds("User", { pattern = "AgentRewind", data = done, modeline = false })
      end)
    end)
  end)
end

---Rewind the current session to before message `index` (0 first); nil: the message under the cursor in the chat,
---else a pick from the list of messages.
---@param index integer?
function M.rewind(index)
  local session = require("agent_lsp.session")
  local s = session.current
  local client = s and vim.lsp.get_client_by_id(s.client_id)
  if not s or not client then
    return vim.notify("agent-lsp: no agent session to rewind", vim.log.levels.WARN)
  end
  if index == nil then
    local t = view.transcript()
    if vim.api.nvim_get_current_buf() == t.buf then
      local at = t:user_at(vim.api.nvim_win_get_cursor(0)[1])
      index = at and at - 1
    end
  end
  if index ~= nil then
    return confirm_and_rewind(s, client, index)
  end
  client_mod.request(client, "agent/rewind", { sessionId = s.id }, function(err, result)
    if err or type(result) ~= "table" then
      return client_mod.report("agent/rewind", err or "no result")
    end
    local messages = vim.tbl_filter(function(m)
      return m.rewindable
    end, result.messages or {})
    vim.ui.select(messages, {
      prompt = "Rewind to before",
      format_item = function(m)
        return ("%d: %s"):format(m.index, vim.split(m.text, "\n", { plain = true })[1])
      end,
    }, function(choice)
      if choice then
        confirm_and_rewind(s, client, choice.index)
      end
    end)
  end)
end

return M
