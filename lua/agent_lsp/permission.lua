--- Answers agent/requestPermission: the server's options through vim.ui.select, plus "Review diff".

local M = {}

M.REVIEW = "Review diff"
M.INLINE = "Review inline (hunk by hunk)"

---@class agent_lsp.PermissionOption
---@field optionId string
---@field name string
---@field kind "allow_once"|"allow_always"|"reject_once"|"reject_always"

---@class agent_lsp.PermissionParams
---@field sessionId string
---@field toolCall { toolCallId: string, title: string?, kind: string?, content: table[]?, rawInput: table? }
---@field options agent_lsp.PermissionOption[]

---@class agent_lsp.PermissionResponse
---@field outcome { outcome: "selected"|"cancelled", optionId: string? }
---@field _meta { modifiedContent: string }?

---@class agent_lsp.Choice
---@field label string
---@field option agent_lsp.PermissionOption?
---@field review table? The diff content to review
---@field reviews table[]? Every file's diff, when the question is about several files (a rename)
---@field inline boolean? Review it in the file's buffer, hunk by hunk

---Questions waiting for an answer, by session id: each function dismisses its question (as cancelled).
---@type table<string, table<table, fun()>>
local pending = {}

---@param options agent_lsp.PermissionOption[]
---@param kinds string[]
---@return agent_lsp.PermissionOption?
function M.option_of_kind(options, kinds)
  for _, kind in ipairs(kinds) do
    for _, option in ipairs(options) do
      if option.kind == kind then
        return option
      end
    end
  end
  return nil
end

---@param option agent_lsp.PermissionOption?
---@return agent_lsp.PermissionResponse
function M.selected(option)
  if not option then
    return { outcome = { outcome = "cancelled" } }
  end
  return { outcome = { outcome = "selected", optionId = option.optionId } }
end

---The first diff a tool call proposes, if any.
---@param tool_call table
---@return { path: string, oldText: string?, newText: string }?
function M.diff_of(tool_call)
  return M.diffs_of(tool_call)[1]
end

---Every diff a tool call proposes: one per file (a rename asks once for all the files it changes).
---@param tool_call table
---@return { path: string, oldText: string?, newText: string }[]
function M.diffs_of(tool_call)
  return vim.tbl_filter(function(item)
    return item.type == "diff"
  end, tool_call.content or {})
end

---The question's one-line prompt: who asks (the session's agent, or a subagent it runs, whose call carries
---`_meta["agent-lsp"].subagent`), the title, and for commands the command itself.
---@param tool_call table
---@return string
local function question(tool_call)
  local title = tool_call.title or "a tool call"
  local raw = tool_call.rawInput
  if
    tool_call.kind == "execute"
    and type(raw) == "table"
    and type(raw.command) == "string"
    and not title:find(raw.command, 1, true)
  then
    title = title .. ": " .. raw.command
  end
  local meta = type(tool_call._meta) == "table" and tool_call._meta["agent-lsp"] or nil
  local origin = type(meta) == "table" and type(meta.subagent) == "table" and meta.subagent or nil
  if origin and type(origin.agent) == "string" then
    return ("Subagent '%s' wants to: %s"):format(origin.agent, title)
  end
  return "Agent wants to: " .. title
end

---Ask the user; `done` receives the response once (the diff review may come back to the menu first).
---@param params agent_lsp.PermissionParams
---@param done fun(response: agent_lsp.PermissionResponse)
function M.ask(params, done)
  local answered = false
  local session = params.sessionId
  local key = {}
  ---@param response agent_lsp.PermissionResponse
  local function finish(response)
    if answered then
      return
    end
    answered = true
    if pending[session] then
      pending[session][key] = nil
    end
    vim.api.nvim_exec_autocmds("User", {
      pattern = "AgentPermission",
      data = { sessionId = session, toolCallId = params.toolCall.toolCallId, response = response },
      modeline = false,
    })
    done(response)
  end
  local review_handle = nil ---@type { close: fun() }?
  pending[session] = pending[session] or {}
  pending[session][key] = function()
    if review_handle then
      review_handle.close()
    end
    finish(M.selected(nil))
  end

  local choices = {} ---@type agent_lsp.Choice[]
  local diffs = M.diffs_of(params.toolCall)
  local diff = #diffs == 1 and diffs[1] or nil
  if #diffs > 1 then
    choices[1] = { label = M.REVIEW, reviews = diffs } -- answered as a whole: no hunk-by-hunk choice
  elseif diff then
    choices[1] = { label = M.REVIEW, review = diff }
    if type(diff.oldText) == "string" then
      choices[2] = { label = M.INLINE, review = diff, inline = true }
    end
  end
  for _, option in ipairs(params.options or {}) do
    choices[#choices + 1] = { label = option.name, option = option }
  end

  local function menu()
    if answered then
      return
    end
    vim.ui.select(choices, {
      prompt = question(params.toolCall),
      kind = "agent_lsp_permission",
      format_item = function(choice)
        return choice.label
      end,
    }, function(choice)
      if not choice then
        return finish(M.selected(nil))
      end
      if choice.reviews then
        review_handle = require("agent_lsp.multi_diff").review(
          { diffs = choice.reviews, title = params.toolCall.title },
          function(decision)
            review_handle = nil
            if decision == "accept" then
              finish(M.selected(M.option_of_kind(params.options, { "allow_once", "allow_always" })))
            elseif decision == "reject" then
              finish(M.selected(M.option_of_kind(params.options, { "reject_once", "reject_always" })))
            else
              vim.schedule(menu) -- closed without a decision: ask again
            end
          end
        )
        return
      end
      if not choice.review then
        return finish(M.selected(choice.option))
      end
      local opts = {
        path = choice.review.path,
        old_text = choice.review.oldText,
        new_text = choice.review.newText,
        title = params.toolCall.title,
      }
      ---@param decision agent_lsp.ReviewDecision
      ---@param modified string?
      local function decided(decision, modified)
        review_handle = nil
        if decision == "accept" then
          local response = M.selected(M.option_of_kind(params.options, { "allow_once", "allow_always" }))
          if modified then
            response._meta = { modifiedContent = modified }
          end
          finish(response)
        elseif decision == "reject" then
          finish(M.selected(M.option_of_kind(params.options, { "reject_once", "reject_always" })))
        else
          vim.schedule(menu) -- the review was closed without a decision: ask again
        end
      end
      local function open_tab()
        review_handle = require("agent_lsp.diff").review(opts, decided)
      end
      if choice.inline then
        -- Partial acceptance is one answer: the resulting text, as for an edited proposal.
        review_handle = require("agent_lsp.inline").review(opts, decided, open_tab)
        if review_handle then
          return
        end
        vim.notify("agent-lsp: the buffer no longer holds what the agent read; opening the diff tab")
      end
      open_tab()
    end)
  end
  menu()
end

---Close the question of a session whose turn ended (the server no longer waits for it).
---@param session_id string
function M.dismiss(session_id)
  for _, dismiss in pairs(vim.tbl_values(pending[session_id] or {})) do
    dismiss()
  end
end

---The lsp.Handler for agent/requestPermission: waits for the answer without blocking the editor.
---@param _ lsp.ResponseError?
---@param params agent_lsp.PermissionParams
---@return agent_lsp.PermissionResponse
function M.handler(_, params, _)
  local co, is_main = coroutine.running()
  if not co or is_main then
    -- Handlers for server requests run in a coroutine; without one there is no way to wait, so refuse.
    return M.selected(nil)
  end
  M.ask(params, function(response)
    -- Resume later: a synchronous vim.ui.select would otherwise resume before the yield below.
    vim.schedule(function()
      coroutine.resume(co, response)
    end)
  end)
  return coroutine.yield()
end

return M
