--- Spec: positions for a language server that negotiated UTF-8 (tests/nvim_plugin/encoding_server.py, pygls): the
--- plugin recodes the agent's UTF-16 positions to the server's and the server's answers back ("é" before a symbol
--- is two bytes and one UTF-16 unit).

local H = require("harness")
local A = require("intel_ask")

return function()
  A.enable("encoding", { H.python, H.repo .. "/tests/nvim_plugin/encoding_server.py" })
  -- Column 24 (UTF-16) is the last letter of `area` after "é"; as a byte column it would be the `(` after it.
  H.eq(A.places(A.ask("goToDefinition", "main.py", 8, 24)), { "shapes.py:3:4" }, "definition after é")
  local server = vim.lsp.get_clients({ name = "encoding" })[1]
  H.eq(server.offset_encoding, "utf-8", "the server negotiated UTF-8")
  H.eq(
    A.places(A.ask("findReferences", "shapes.py", 3, 5)),
    { "main.py:0:19", "main.py:4:11", "main.py:4:24", "main.py:8:21", "shapes.py:3:4", "shapes.py:4:18" },
    "references in UTF-16 columns"
  )
  io.stdout:write("code_intel encoding ok: a UTF-8 server, UTF-16 on the wire\n")
end
