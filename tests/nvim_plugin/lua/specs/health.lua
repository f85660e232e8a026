--- Spec: :checkhealth agent_lsp reports the server command, its version and how it authenticates.

local H = require("harness")

return function()
  H.setup()
  vim.cmd("checkhealth agent_lsp")
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  H.contains(text, "command: " .. H.python .. " -m agent_lsp lsp --fake-responses")
  H.contains(text, "version: agent-lsp ")
  H.contains(text, "replaying recorded responses")
  H.ok(not text:find("ERROR", 1, true), "no error in:\n" .. text)

  -- Without the replay flag and without keys, the missing credentials are a warning with advice.
  require("agent_lsp").setup({ cmd = { H.python, "-m", "agent_lsp", "lsp" } })
  vim.cmd("checkhealth agent_lsp")
  text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  H.contains(text, "no credentials in the environment")
  H.contains(text, "GEMINI_API_KEY")

  -- An OpenAI-compatible endpoint in the server's environment is reported with its model, never a key.
  require("agent_lsp").setup({
    cmd = { H.python, "-m", "agent_lsp", "lsp" },
    cmd_env = {
      OPENAI_BASE_URL = "http://127.0.0.1:11434/v1",
      OPENAI_MODEL = "qwen3-coder",
      OPENAI_API_KEY = "sk-hidden",
    },
  })
  vim.cmd("checkhealth agent_lsp")
  text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  H.contains(text, "OpenAI-compatible endpoint http://127.0.0.1:11434/v1, model qwen3-coder")
  H.ok(not text:find("sk-hidden", 1, true), "the key must not be shown:\n" .. text)
end
