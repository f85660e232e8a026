--- Spec: agent/codeIntel and agent/diagnostics answered by the plugin from a real language server (basedpyright,
--- from .deps/language-servers) attached to the file's buffer: every operation on files the editor had not opened
--- (loaded into hidden buffers), UTF-16 positions, errors in words, and diagnostics waited for after an edit.

local H = require("harness")

local intel = require("agent_lsp.code_intel")
local A = require("intel_ask")
local call, ask, places = A.call, A.ask, A.places
local codes = vim.lsp.protocol.ErrorCodes

return function()
  A.enable("basedpyright", { assert(os.getenv("AGENT_NVIM_PYRIGHT"), "AGENT_NVIM_PYRIGHT"), "--stdio" })
  local main_uri = vim.uri_from_fname(H.project .. "/main.py")

  -- Nothing is open: the first request loads main.py into a hidden buffer and basedpyright attaches to it.
  H.eq(vim.fn.bufnr(H.project .. "/main.py"), -1, "main.py is not loaded before the agent asks")
  local def = ask("goToDefinition", "main.py", 4, 13)
  H.eq(places(def), { "shapes.py:3:4" }, "the definition of area")
  local main_buf = vim.fn.bufnr(H.project .. "/main.py")
  H.ok(vim.api.nvim_buf_is_loaded(main_buf), "main.py loaded")
  H.eq(vim.fn.win_findbuf(main_buf), {}, "in no window")
  H.eq(vim.bo[main_buf].buflisted, false, "not listed")
  local names = vim.tbl_map(function(c)
    return c.name
  end, vim.lsp.get_clients({ bufnr = main_buf }))
  H.ok(vim.tbl_contains(names, "basedpyright"), "basedpyright attached to the hidden buffer: " .. vim.inspect(names))

  -- The call `area(` sits after a non-ASCII string: the position is UTF-16 ("é" is one unit, two bytes).
  H.eq(places(ask("goToDefinition", "main.py", 8, 24)), { "shapes.py:3:4" }, "definition after é")

  H.eq(
    places(ask("findReferences", "main.py", 4, 13)),
    { "main.py:0:19", "main.py:4:11", "main.py:4:24", "main.py:8:21", "shapes.py:3:4" },
    "references of area, the declaration included"
  )

  local hover = ask("hover", "shapes.py", 3, 5)
  H.eq(hover.contents.kind, "markdown", "hover is markdown")
  H.contains(hover.contents.value, "(function) def area(\n    width: int,\n    height: int\n) -> int", "signature")
  H.contains(hover.contents.value, "Return the area of a rectangle.", "hover doc")

  local symbols = ask("documentSymbol", "shapes.py", 0, 0)
  H.eq(
    vim.tbl_map(function(s)
      return s.name
    end, symbols),
    { "area", "Square" },
    "document symbols"
  )

  local found = ask("workspaceSymbol", "main.py", 0, 0, { query = "Square" })
  H.eq(places(vim.tbl_map(function(s)
    return s.location
  end, found)), { "shapes.py:8:6" }, "workspace symbol")

  local incoming = ask("incomingCalls", "shapes.py", 3, 5)
  local callers = vim.tbl_map(function(c)
    return c.from.name .. "@" .. vim.fs.basename(vim.uri_to_fname(c.from.uri)) .. ":" .. #c.fromRanges
  end, incoming)
  table.sort(callers)
  H.eq(callers, { "label@main.py:1", "total@main.py:2" }, "callers of area")
  local outgoing = ask("outgoingCalls", "main.py", 3, 5)
  H.eq(
    vim.tbl_map(function(c)
      return c.to.name
    end, outgoing),
    { "area" },
    "what total calls"
  )

  -- goToImplementation answers Location[] (links become their target's name).
  local impl = ask("goToImplementation", "kinds.py", 1, 9)
  H.eq(places(impl), { "kinds.py:1:8", "kinds.py:6:8" }, "Shape.size and its override")
  H.ok(impl[1].uri and impl[1].targetUri == nil, "a Location")

  local edit = ask("rename", "shapes.py", 3, 5, { newName = "surface" })
  local touched = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    touched[vim.fs.basename(vim.uri_to_fname(change.textDocument.uri))] = #change.edits
  end
  for uri, edits in pairs(edit.changes or {}) do
    touched[vim.fs.basename(vim.uri_to_fname(uri))] = #edits
  end
  H.eq(touched, { ["shapes.py"] = 1, ["main.py"] = 4 }, "the rename's edits per file")

  -- A file no server serves answers null; a bad request is an error in words.
  H.eq(ask("goToDefinition", "notes.txt", 0, 0), vim.NIL, "plain text has no provider")
  local _, err = call(intel.code_intel_handler, { operation = "typeDefinition", textDocument = { uri = main_uri } })
  H.eq(err and err.code, codes.InvalidParams, "unknown operation")
  H.contains(err.message, 'unknown operation "typeDefinition"; one of goToDefinition')
  _, err = call(intel.code_intel_handler, { operation = "hover", textDocument = { uri = main_uri .. "x" } })
  H.contains(err and err.message or "", "no such file: " .. H.project .. "/main.pyx")

  -- Diagnostics: now, then after an edit that breaks the file, then after the fix.
  local now = call(intel.diagnostics_handler, { uris = { main_uri }, waitMs = 10000 })
  H.eq(now.items[1].diagnostics, {}, "main.py starts clean")
  H.eq(now.items[1].uri, main_uri, "the uri as asked")
  -- The agent's edit, as its workspace/applyEdit lands: line 8 now calls a name that does not exist.
  vim.lsp.util.apply_workspace_edit({
    changes = {
      [main_uri] = {
        {
          range = { start = { line = 8, character = 21 }, ["end"] = { line = 8, character = 25 } },
          newText = "missing_name",
        },
      },
    },
  }, "utf-16")
  local after = call(intel.diagnostics_handler, { uris = { main_uri }, waitMs = 20000 }).items[1]
  H.ok(after.settled, "the server reported after the edit")
  local messages = {}
  for _, d in ipairs(after.diagnostics) do
    messages[#messages + 1] = d.message
    if d.message:find("missing_name", 1, true) then
      H.eq(d.severity, 1, "an error")
      H.eq(d.range.start, { line = 8, character = 21 }, "its UTF-16 start (after é)")
      H.eq(d.source, "basedpyright", "its source")
    end
  end
  H.contains(table.concat(messages, "\n"), '"missing_name" is not defined', "the new error")
  local unsettled = call(intel.diagnostics_handler, { uris = { main_uri }, waitMs = 0 }).items[1]
  H.ok(unsettled.settled, "nothing changed since: still settled")
  vim.api.nvim_buf_call(main_buf, function()
    vim.cmd("silent undo")
  end)
  local fixed = call(intel.diagnostics_handler, { uris = { main_uri }, waitMs = 20000 }).items[1]
  H.ok(fixed.settled, "reported after the undo")
  H.eq(fixed.diagnostics, {}, "clean again")
  -- A file no language server serves is not waited for: the answer comes long before the 30 s asked.
  local notes = vim.uri_from_fname(H.project .. "/notes.txt")
  local plain = call(intel.diagnostics_handler, { uris = { notes }, waitMs = 30000 }, 10000).items[1]
  H.eq(plain, { uri = notes, diagnostics = {}, settled = false }, "plain text answered at once")
  local gone = vim.uri_from_fname(H.project .. "/gone.py")
  local both = call(intel.diagnostics_handler, { uris = { gone, main_uri }, waitMs = 0 }).items
  H.eq(both[1], { uri = gone, diagnostics = {}, settled = false }, "a missing file has none")
  H.eq(both[2].uri, main_uri, "and the other file is still answered")
  io.stdout:write("latency (first one cold, with basedpyright starting): " .. table.concat(A.timings, ", ") .. "\n")
  io.stdout:write("code_intel direct ok: every operation and diagnostics from basedpyright in hidden buffers\n")
end
