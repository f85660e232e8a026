-- luacheck settings for the Neovim plugin (lua/, plugin/) and its test specs (tests/nvim_plugin/).
std = "luajit"
-- vim is Neovim's API table: its fields (vim.g, vim.opt, vim.bo, vim.ui.select in tests) are meant to be set.
globals = { "vim" }
max_line_length = 120
max_code_line_length = 120
max_comment_line_length = 120
-- Handlers and callbacks keep the full signature Neovim calls them with.
unused_args = false
