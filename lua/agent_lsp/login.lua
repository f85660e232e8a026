--- :AgentLogin and :AgentLogout: the server's own `agent-lsp login` in a terminal window (the key is typed there,
--- with echo off, and never passes through Neovim's variables, messages or history), and `agent-lsp logout`.

local M = {}

---The server command with its `lsp` argument (and what follows it) replaced by `args`: the same program and
---Python, so the sign-in is stored where that server reads it.
---@param args string[]
---@return string[]? cmd
---@return string? why
function M.command(args)
  local config = require("agent_lsp.config")
  local cmd = config.cmd(config.options)
  local at
  for i = #cmd, 1, -1 do
    if cmd[i] == "lsp" then
      at = i
      break
    end
  end
  if not at then
    return nil, "cannot tell how to run `agent-lsp login` from the server command " .. table.concat(cmd, " ")
  end
  return vim.list_extend(vim.list_slice(cmd, 1, at - 1), args), nil
end

---The environment for the command: Neovim's, plus setup({ cmd_env }) as the server gets it.
---@return table<string, string>
local function env()
  return vim.tbl_extend("force", vim.fn.environ(), require("agent_lsp.config").options.cmd_env or {})
end

---Run `agent-lsp login [args]` in a terminal window below. `on_exit` gets the exit code (0: signed in).
---@param args string[]? extra flags, e.g. { "--openai", "--base-url", "http://localhost:11434/v1" }
---@param on_exit fun(code: integer)?
---@return integer? job
function M.login(args, on_exit)
  local cmd, why = M.command(vim.list_extend({ "login" }, args or {}))
  if not cmd then
    vim.notify("agent-lsp: " .. why, vim.log.levels.ERROR)
    return nil
  end
  vim.cmd("botright new")
  vim.bo.bufhidden = "wipe"
  local job = vim.fn.jobstart(cmd, {
    term = true,
    env = env(),
    clear_env = true,
    on_exit = function(_, code)
      vim.schedule(function()
        if code == 0 then
          vim.notify("agent-lsp: signed in; new agent sessions use it", vim.log.levels.INFO)
        else
          vim.notify(("agent-lsp: sign-in did not finish (exit code %d)"):format(code), vim.log.levels.WARN)
        end
        if on_exit then
          on_exit(code)
        end
      end)
    end,
  })
  vim.cmd("startinsert")
  return job
end

---Run `agent-lsp logout`; `on_done` gets the exit code and what it said.
---@param on_done fun(code: integer, said: string)?
function M.logout(on_done)
  local cmd, why = M.command({ "logout" })
  if not cmd then
    vim.notify("agent-lsp: " .. why, vim.log.levels.ERROR)
    return
  end
  vim.system(cmd, { text = true, env = env(), clear_env = true }, function(result)
    vim.schedule(function()
      local said = vim.trim((result.stdout or "") .. (result.stderr or ""))
      vim.notify("agent-lsp: " .. said, result.code == 0 and vim.log.levels.INFO or vim.log.levels.ERROR)
      if on_done then
        on_done(result.code, said)
      end
    end)
  end)
end

---Where `agent-lsp login` keeps its record (the key itself may be in the OS keyring instead).
---@param environment table<string, string>
---@return string
function M.stored_path(environment)
  local home = environment.AGENT_LSP_HOME
  if not home or home == "" then
    home = (environment.HOME or vim.uv.os_homedir() or "~") .. "/.agent-lsp"
  end
  return home .. "/credentials.json"
end

return M
