--- Spec: the agent's code actions in vim.lsp.buf.code_action(), and :AgentFix on a range with a diagnostic.

local H = require("harness")

return function()
  H.setup()
  local done = H.record("AgentTurnDone")
  vim.cmd.edit(H.project .. "/stats.py")
  local buf = vim.api.nvim_get_current_buf()
  H.wait(function()
    local client = vim.lsp.get_clients({ bufnr = buf, name = "agent-lsp" })[1]
    return client ~= nil and client.initialized == true
  end, "the client")

  local menus = H.stub_select(H.pick("Explain with agent"))
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  vim.lsp.buf.code_action()
  H.wait(function()
    return #done == 1
  end, "the explain turn")
  H.eq(done[1].stopReason, "end_turn", "explain stop reason")
  H.ok(vim.tbl_contains(menus[1].labels, "Explain with agent"), "the code action is offered")
  local text = H.chat_text()
  H.contains(text, "## You\nExplain line 2 of stats.py")
  H.contains(text, "It divides by one less than the count.")

  local ns = vim.api.nvim_create_namespace("spec")
  local error = vim.diagnostic.severity.ERROR
  vim.diagnostic.set(ns, buf, { { lnum = 1, col = 4, message = "off by one", severity = error } })
  vim.cmd("1,2AgentFix")
  H.wait(function()
    return #done == 2
  end, "the fix turn")
  H.contains(H.chat_text(), "## You\nFix lines 1-2 of stats.py: off by one")
  H.contains(H.chat_text(), "That is a bug.")

  -- "Edit selection with agent…" asks for the instruction with vim.ui.input.
  H.stub_select(H.pick("Edit selection with agent…"))
  local asked = {} ---@type string[]
  ---@diagnostic disable-next-line: duplicate-set-field
  vim.ui.input = function(opts, on_confirm)
    asked[#asked + 1] = opts.prompt
    vim.schedule(function()
      on_confirm("add type hints")
    end)
  end
  vim.lsp.buf.code_action({ range = { start = { 1, 0 }, ["end"] = { 2, 10 } } })
  H.wait(function()
    return #done == 3
  end, "the edit turn")
  H.eq(asked, { "How should the agent edit the selection? " }, "input prompts")
  H.contains(H.chat_text(), "## You\nEdit lines 1-2 of stats.py: add type hints")
  H.contains(H.chat_text(), "Hints added.")
end
