"""The chat: a prompt typed into the chat's prompt buffer streams the answer, thoughts, tool lines and plan."""

from __future__ import annotations

from tests.nvim_plugin.conftest import SpecRun, call_line, text_line


def test_chat_streams_answer_tools_and_plan(nvim_spec: SpecRun) -> None:
    nvim_spec.write("main.py", "print('hi')\n")
    todos = {"todos": [{"description": "Look around", "status": "completed"}, {"description": "Report", "status": "pending"}]}
    nvim_spec.run(
        "chat",
        [
            call_line("list_directory", {"dir_path": "."}, thought="Looking around"),
            call_line("write_todos", todos),
            text_line("The project ", "has one file."),
        ],
    )
