--- Spec: approval_mode = "yolo" in the user's own setup() reaches the server with each new session, never in
--- initializationOptions (where the server ignores a mode wider than default and says so): the session opens in yolo
--- and no "ignored approvalMode" notice shows. Plan and default still go in initializationOptions.

local H = require("harness")

return function()
  local notices = {} ---@type string[]
  local show = vim.lsp.handlers["window/showMessage"]
  vim.lsp.handlers["window/showMessage"] = function(err, params, ctx)
    notices[#notices + 1] = params.message
    return show(err, params, ctx)
  end
  local function ignored_mode()
    return vim.tbl_filter(function(m)
      return m:find("approvalMode", 1, true) ~= nil
    end, notices)
  end

  H.setup({ approval_mode = "yolo" })
  local config = require("agent_lsp.config")
  H.eq(config.server_settings(config.options).agentLsp.approvalMode, nil, "yolo left out of initializationOptions")
  H.eq(config.server_settings({ approval_mode = "plan" }).agentLsp.approvalMode, "plan", "plan still sent")
  H.eq(config.server_settings({ settings = { approvalMode = "default" } }).agentLsp.approvalMode, "default", "default")
  H.eq(config.server_settings({ settings = { approval_mode = "auto_edit" } }).agentLsp.approval_mode, nil, "auto_edit")
  H.eq(config.session_mode({ settings = { approvalMode = "auto_edit" } }), "auto_edit", "settings' mode per session")

  local session = require("agent_lsp.session")
  local opened ---@type agent_lsp.Session?
  session.new(function(s)
    opened = s
  end)
  H.wait(function()
    return opened ~= nil
  end, "the session")
  H.eq(opened.modes.currentModeId, "yolo", "the user's mode, from agent/newSession")

  -- A barrier: the server writes its notices in order, so once a later one (a bad setting sent now) has arrived,
  -- any notice about the initializationOptions would have arrived before it.
  local client = assert(vim.lsp.get_client_by_id(opened.client_id))
  client:notify("workspace/didChangeConfiguration", { settings = { agentLsp = { checkpointing = "sometimes" } } })
  H.wait(function()
    return vim.iter(notices):any(function(m)
      return m:find("checkpointing", 1, true) ~= nil
    end)
  end, "the barrier's notice")
  H.eq(ignored_mode(), {}, "no ignored approvalMode notice")
end
