--- Minimal Neovim config for the plugin tests: the repository on the runtimepath, then the spec named by env.

local repo = assert(os.getenv("AGENT_NVIM_REPO"), "AGENT_NVIM_REPO is not set")
local here = repo .. "/tests/nvim_plugin"
vim.opt.runtimepath:prepend(repo)
vim.opt.runtimepath:append(here)
vim.opt.swapfile = false
vim.opt.shadafile = "NONE"

vim.api.nvim_create_autocmd("VimEnter", {
  once = true,
  callback = function()
    vim.schedule(function()
      require("harness").run(assert(os.getenv("AGENT_NVIM_SPEC"), "AGENT_NVIM_SPEC is not set"))
    end)
  end,
})
