--- :AgentLspInstall — the server from the plugin's own checkout, in a private venv under stdpath("data").
---
--- The plugin lives in the agent-lsp repository, so the checkout a plugin manager cloned is the server's source
--- too: lazy.nvim's `build = ":AgentLspInstall"` (packer's `run`, vim-plug's `do`) installs the distribution
--- agent-lsp-server from it into the venv on install and refreshes it on update, so the server is always the
--- plugin's own version. pip only fetches the server's dependencies.

local M = {}

M.MIN_PYTHON = { 3, 11 }

---The folder of the private venv.
---@return string
function M.venv_dir()
  return vim.fs.joinpath(vim.fn.stdpath("data") --[[@as string]], "agent-lsp", "venv")
end

---The venv's Python.
---@param venv string?
---@return string
function M.venv_python(venv)
  venv = venv or M.venv_dir()
  if vim.fn.has("win32") == 1 then
    return vim.fs.joinpath(venv, "Scripts", "python.exe")
  end
  return vim.fs.joinpath(venv, "bin", "python")
end

---The root of the plugin's checkout (the folder holding pyproject.toml, lua/ and plugin/).
---@return string
function M.plugin_root()
  local source = debug.getinfo(1, "S").source:sub(2)
  return vim.fs.dirname(vim.fs.dirname(vim.fs.dirname(vim.fs.normalize(source))))
end

---The server command of the private venv, or nil while it is not installed. `-P` keeps the working directory
---off sys.path, so a project folder named agent_lsp cannot stand in for the installed package.
---@return string[]?
function M.server_cmd()
  local python = M.venv_python()
  if vim.fn.executable(python) ~= 1 then
    return nil
  end
  return { python, "-P", "-m", "agent_lsp", "lsp" }
end

---`{3, 12}` from a `major.minor` line, or nil.
---@param text string
---@return integer[]?
function M.parse_version(text)
  local major, minor = vim.trim(text or ""):match("^(%d+)%.(%d+)")
  if not major then
    return nil
  end
  return { tonumber(major), tonumber(minor) }
end

---@param version integer[]
---@return boolean
function M.supported(version)
  return version[1] > M.MIN_PYTHON[1] or (version[1] == M.MIN_PYTHON[1] and version[2] >= M.MIN_PYTHON[2])
end

---The first Python 3.11+ among `candidates` (default: vim.g.agent_lsp_python, then python3… on PATH).
---@param candidates string[]?
---@return string? python, string[] tried
function M.find_python(candidates)
  candidates = candidates
    or vim.list_extend(
      vim.g.agent_lsp_python and { vim.g.agent_lsp_python } or {},
      { "python3", "python3.13", "python3.12", "python3.11", "python" }
    )
  local tried = {} ---@type string[]
  for _, candidate in ipairs(candidates) do
    if vim.fn.executable(candidate) == 1 then
      local probe = { candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])" }
      local result = vim.system(probe, { text = true }):wait(15000)
      local version = result.code == 0 and M.parse_version(result.stdout or "") or nil
      tried[#tried + 1] = version and ("%s (%d.%d)"):format(candidate, version[1], version[2]) or candidate
      if version and M.supported(version) then
        return candidate, tried
      end
    end
  end
  return nil, tried
end

---What to do without a Python 3.11+.
---@param tried string[]
---@return string
function M.no_python_message(tried)
  return (
    "agent-lsp needs Python %d.%d or newer to install its server; found %s. Install one (e.g. "
    .. "`sudo apt install python3 python3-venv`, `brew install python@3.12`, or python.org), or set "
    .. "vim.g.agent_lsp_python to its path, then run :AgentLspInstall."
  ):format(
    M.MIN_PYTHON[1],
    M.MIN_PYTHON[2],
    #tried > 0 and table.concat(tried, ", ") or "none on PATH"
  )
end

---Run one installer step; raise with its output's tail when it fails.
---@param cmd string[]
---@param log fun(msg: string)
local function step(cmd, log)
  log(table.concat(cmd, " "))
  local result = vim.system(cmd, {
    text = true,
    env = { PIP_NO_INPUT = "1", PIP_DISABLE_PIP_VERSION_CHECK = "1" },
  }):wait()
  if result.code ~= 0 then
    local output = vim.trim((result.stdout or "") .. "\n" .. (result.stderr or ""))
    local lines = vim.split(output, "\n")
    error(
      ("%s failed (exit %d):\n%s"):format(cmd[1], result.code, table.concat(lines, "\n", math.max(1, #lines - 25))),
      0
    )
  end
end

---Create (or refresh) the private venv from the plugin's checkout. Synchronous: plugin managers wait for it.
---Raises with a message a person can act on when it cannot.
---@param opts { root: string?, venv: string?, python: string?, log: fun(msg: string)? }?
---@return string version the installed server's `--version` line
function M.install(opts)
  opts = opts or {}
  local root = opts.root or M.plugin_root()
  local venv = opts.venv or M.venv_dir()
  local log = opts.log or function(msg)
    vim.api.nvim_echo({ { "agent-lsp: " .. msg } }, false, {})
    vim.cmd.redraw()
  end
  if not vim.uv.fs_stat(vim.fs.joinpath(root, "pyproject.toml")) then
    error(("%s is not an agent-lsp checkout (no pyproject.toml)"):format(root), 0)
  end
  local python = M.venv_python(venv)
  -- A venv whose Python still runs is upgraded in place; a missing or broken one is created anew.
  local reusable = vim.fn.executable(python) == 1
    and vim.system({ python, "-P", "-c", "import pip" }):wait(30000).code == 0
  if not reusable then
    local base, tried = opts.python, {}
    if not base then
      base, tried = M.find_python()
    end
    if not base then
      error(M.no_python_message(tried), 0)
    end
    vim.fn.delete(venv, "rf")
    vim.fn.mkdir(vim.fs.dirname(venv), "p")
    log("creating " .. venv)
    step({ base, "-m", "venv", venv }, log)
  end
  log("installing agent-lsp-server from " .. root)
  local pip = { python, "-P", "-m", "pip", "install", "--disable-pip-version-check", "--no-input" }
  if reusable then
    -- The same version from a newer checkout: pip keeps the installed copy unless told to replace it.
    step(vim.list_extend(vim.deepcopy(pip), { "--force-reinstall", "--no-deps", root }), log)
  end
  step(vim.list_extend(vim.deepcopy(pip), { root }), log)
  local result = vim.system({ python, "-P", "-m", "agent_lsp", "--version" }, { text = true }):wait(30000)
  if result.code ~= 0 then
    error("the installed server does not run: " .. vim.trim(result.stderr or ""), 0)
  end
  local version = vim.trim(result.stdout or "")
  log(("installed %s into %s"):format(version, venv))
  return version
end

---:AgentLspInstall. In a plugin manager's build step an error must fail the build, so it is raised.
function M.command()
  M.install()
end

return M
