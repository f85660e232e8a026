--- :checkhealth agent_lsp — Neovim version, the server command and its version, the model provider, running clients.

local M = {}

---The server command with its `lsp` subcommand replaced by `--version`.
---@param cmd string[]
---@return string[]
function M.version_cmd(cmd)
  local out = {} ---@type string[]
  for _, arg in ipairs(cmd) do
    if arg == "lsp" then
      break
    end
    out[#out + 1] = arg
  end
  out[#out + 1] = "--version"
  return out
end

---How the server will authenticate, judged from the environment it gets; nil when nothing is set.
---@param env table<string, string?>
---@param cmd string[]
---@return string?
function M.auth(env, cmd)
  if vim.list_contains(cmd, "--fake-responses") then
    return "replaying recorded responses (--fake-responses): no credentials needed"
  end
  ---@param name string
  ---@return boolean
  local function set(name)
    local value = env[name]
    return type(value) == "string" and vim.trim(value) ~= ""
  end
  -- The same rule as the server's (without settings, which only the server reads): the OpenAI variables
  -- pick an OpenAI-compatible endpoint.
  if set("OPENAI_BASE_URL") or set("OPENAI_MODEL") then
    local url = set("OPENAI_BASE_URL") and vim.trim(env.OPENAI_BASE_URL) or "https://api.openai.com/v1"
    local model = set("OPENAI_MODEL") and vim.trim(env.OPENAI_MODEL) or "(unset: settings model.name or --model)"
    local key = set("OPENAI_API_KEY") and "key from OPENAI_API_KEY" or "no key"
    local how = "OpenAI-compatible endpoint %s, model %s (%s; settings model.provider can override)"
    return how:format(url, model, key)
  end
  local vertex = (env.GOOGLE_GENAI_USE_VERTEXAI or ""):lower()
  if vertex == "true" or vertex == "1" or vertex == "yes" then
    if set("GOOGLE_CLOUD_PROJECT") and set("GOOGLE_CLOUD_LOCATION") then
      return "Vertex AI (GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION)"
    elseif set("GOOGLE_API_KEY") then
      return "Vertex AI express mode (GOOGLE_API_KEY)"
    end
    return nil
  end
  for _, name in ipairs({ "GEMINI_API_KEY", "GOOGLE_API_KEY" }) do
    if set(name) then
      return "Gemini API key from " .. name
    end
  end
  return nil
end

function M.check()
  local health = vim.health
  local options = require("agent_lsp.config").options

  health.start("agent-lsp: Neovim")
  if vim.fn.has("nvim-0.11") == 1 then
    health.ok("Neovim " .. tostring(vim.version()))
  else
    health.error("Neovim 0.11 or newer is needed", { "Upgrade Neovim" })
  end

  health.start("agent-lsp: server")
  local install = require("agent_lsp.install")
  local cmd = require("agent_lsp.config").cmd(options)
  health.info("command: " .. table.concat(cmd, " "))
  if options.cmd then
    health.info("from setup({ cmd = ... })")
  elseif install.server_cmd() then
    health.info("the private venv made by :AgentLspInstall: " .. install.venv_dir())
  else
    health.info("no private venv yet (" .. install.venv_dir() .. "): looking for agent-lsp on PATH")
  end
  if vim.fn.executable(cmd[1]) ~= 1 then
    local python, tried = install.find_python()
    local advice = {
      "Run :AgentLspInstall: it installs the server from the plugin's own checkout ("
        .. install.plugin_root()
        .. ") into a private venv. With lazy.nvim, add build = \":AgentLspInstall\" to the plugin spec"
        .. " so it runs on install and update.",
      "Or install it as a tool (uv tool install agent-lsp-server, or pipx install agent-lsp-server: the package"
        .. ' is agent-lsp-server, the command agent-lsp) and set setup({ cmd = { "/path/to/agent-lsp", "lsp" } }).',
    }
    if not python then
      table.insert(advice, 1, install.no_python_message(tried))
    end
    health.error(("the agent server is not installed (%s is not executable)"):format(cmd[1]), advice)
  else
    local env = vim.tbl_extend("force", vim.fn.environ(), options.cmd_env or {})
    local ok, result = pcall(function()
      return vim.system(M.version_cmd(cmd), { text = true, env = env }):wait(10000)
    end)
    if ok and result.code == 0 then
      health.ok("version: " .. vim.trim(result.stdout or ""))
    else
      local why = ok and ((result.stderr ~= "" and result.stderr) or ("exit code " .. result.code)) or result
      health.error("the server did not report its version: " .. vim.trim(tostring(why)), {
        "Run :AgentLspInstall to (re)install the server into its private venv",
      })
    end
  end

  health.start("agent-lsp: authentication")
  local env = vim.tbl_extend("force", vim.fn.environ(), options.cmd_env or {})
  local how = M.auth(env, cmd)
  local stored = require("agent_lsp.login").stored_path(env)
  if how then
    health.ok(how)
  elseif vim.uv.fs_stat(stored) then
    health.ok("the sign-in stored by `agent-lsp login` (" .. stored .. "); :AgentLogout removes it")
  else
    health.warn("no credentials in the environment", {
      "Run :AgentLogin to sign in once (agent-lsp login: the key is checked, then kept in the OS keyring or a"
        .. " file only you can read)",
      "Set GEMINI_API_KEY (or GOOGLE_API_KEY), or GOOGLE_GENAI_USE_VERTEXAI=true with a project and location",
      "Or an OpenAI-compatible endpoint (Ollama, llama.cpp, vLLM, LM Studio, …): OPENAI_BASE_URL and OPENAI_MODEL",
      "A .env file in the workspace or ~/.gemini/.env is read by the server too",
    })
  end

  health.start("agent-lsp: clients")
  local clients = vim.lsp.get_clients({ name = "agent-lsp" })
  if #clients == 0 then
    health.info("no agent-lsp client is running (it starts on the first file or :AgentChat)")
  end
  for _, client in ipairs(clients) do
    local agent = client.server_capabilities
      and client.server_capabilities.experimental
      and client.server_capabilities.experimental.agent
    local version = client.server_info and client.server_info.version or "?"
    if agent then
      health.ok(("client %d for %s (server %s, agent protocol %s)"):format(
        client.id,
        client.root_dir or "?",
        version,
        tostring(agent.protocolVersion)
      ))
    else
      health.warn(("client %d for %s does not announce the agent protocol"):format(client.id, client.root_dir or "?"))
    end
  end
end

return M
