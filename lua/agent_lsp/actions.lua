--- Explain / fix / edit a range with the agent: :AgentExplain, :AgentFix and the code-action commands.

local client_mod = require("agent_lsp.client")
local turns = require("agent_lsp.turns")
local view = require("agent_lsp.chat.view")

local M = {}

---@class agent_lsp.CommandArgs
---@field uri string
---@field range lsp.Range
---@field diagnostics lsp.Diagnostic[]?
---@field instruction string?
---@field sessionId string?

---A vim.diagnostic entry as the LSP diagnostic the server expects (the original one when it came over LSP).
---@param d vim.Diagnostic
---@return lsp.Diagnostic
local function to_lsp(d)
  local original = d.user_data and d.user_data.lsp
  if type(original) == "table" and original.range then
    return original
  end
  return {
    range = {
      start = { line = d.lnum, character = d.col },
      ["end"] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
    },
    message = d.message,
    severity = d.severity,
    source = d.source,
    code = d.code,
  }
end

---The command argument for lines `first`..`last` (1-based, inclusive) of a buffer.
---@param bufnr integer
---@param first integer
---@param last integer
---@return agent_lsp.CommandArgs
function M.range_args(bufnr, first, last)
  local last_line = vim.api.nvim_buf_get_lines(bufnr, last - 1, last, false)[1] or ""
  local diagnostics = {} ---@type lsp.Diagnostic[]
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.lnum >= first - 1 and d.lnum <= last - 1 then
      diagnostics[#diagnostics + 1] = to_lsp(d)
    end
  end
  return {
    uri = vim.uri_from_bufnr(bufnr),
    range = {
      start = { line = first - 1, character = 0 },
      ["end"] = { line = last - 1, character = vim.str_utfindex(last_line, "utf-16") },
    },
    diagnostics = diagnostics,
  }
end

local VERBS = { ["agent.fix"] = "Fix", ["agent.explain"] = "Explain", ["agent.editSelection"] = "Edit" }

---What the chat shows as the user's message for a command.
---@param name string
---@param args agent_lsp.CommandArgs
---@return string
function M.label(name, args)
  local path = vim.fn.fnamemodify(vim.uri_to_fname(args.uri), ":~:.")
  local first, last = args.range.start.line + 1, args.range["end"].line + 1
  local where = first == last and ("line %d"):format(first) or ("lines %d-%d"):format(first, last)
  local text = ("%s %s of %s"):format(VERBS[name] or name, where, path)
  if args.instruction then
    text = text .. ": " .. args.instruction
  elseif name == "agent.fix" and args.diagnostics and args.diagnostics[1] then
    text = text .. ": " .. args.diagnostics[1].message
  end
  return text
end

---Run one of the server's commands as a chat turn (opening the chat), asking for the edit instruction first.
---@param name "agent.fix"|"agent.explain"|"agent.editSelection"
---@param args agent_lsp.CommandArgs
---@param bufnr integer?
function M.execute(name, args, bufnr)
  if name == "agent.editSelection" and not args.instruction then
    vim.ui.input({ prompt = "How should the agent edit the selection? " }, function(instruction)
      if instruction and vim.trim(instruction) ~= "" then
        M.execute(name, vim.tbl_extend("force", args, { instruction = instruction }), bufnr)
      end
    end)
    return
  end
  view.open({ stay = true })
  turns.turn(M.label(name, args), "workspace/executeCommand", function(s)
    -- sessionId is a hint for servers that accept it; the server otherwise uses its current session (ours).
    return { command = name, arguments = { vim.tbl_extend("force", args, { sessionId = s.id }) } }
  end, bufnr)
end

---A code action's command, run through this plugin (so it shows in the chat) instead of blindly.
---@param name "agent.fix"|"agent.explain"|"agent.editSelection"
---@param command lsp.Command
---@param ctx { bufnr: integer? }
function M.run_command(name, command, ctx)
  local args = command.arguments and command.arguments[1]
  if type(args) ~= "table" then
    return vim.notify("agent-lsp: " .. name .. " needs {uri, range}", vim.log.levels.ERROR)
  end
  M.execute(name, args, ctx and ctx.bufnr)
end

---:AgentExplain / :AgentFix / :AgentEdit over a line range of the current buffer.
---@param name "agent.fix"|"agent.explain"|"agent.editSelection"
---@param first integer
---@param last integer
---@param instruction string?
function M.on_range(name, first, last, instruction)
  local bufnr = vim.api.nvim_get_current_buf()
  if not client_mod.is_file_buffer(bufnr) then
    return vim.notify("agent-lsp: this works on a file buffer", vim.log.levels.WARN)
  end
  client_mod.ensure()
  local args = M.range_args(bufnr, first, last)
  if instruction and instruction ~= "" then
    args.instruction = instruction
  end
  if name == "agent.fix" and #args.diagnostics == 0 then
    -- The server's fix prompt is about diagnostics; without any, ask for an edit that fixes bugs instead.
    name, args.instruction = "agent.editSelection", args.instruction or "fix the bugs in it"
  end
  M.execute(name, args, bufnr)
end

return M
