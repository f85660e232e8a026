"""History keeps its token estimate as it changes: the same figure a full count gives, at every step."""

from __future__ import annotations

from agent_lsp.core.history import History, estimate_tokens
from agent_lsp.model.base import Content, FunctionCall, FunctionResponse, Part


def _agrees(history: History) -> None:
    assert history.estimate() == estimate_tokens(history.contents())


def test_the_kept_estimate_follows_every_change() -> None:
    history = History([Content("user", (Part(text="read the file please"),))])
    _agrees(history)
    history.add_model([Part(text="Let me "), Part(text="look.")])  # glued into one part
    history.add_model([Part(function_call=FunctionCall(name="read_file", args={"path": "a.py"}, id="c1"))])
    _agrees(history)
    mark = history.mark()
    history.add_user([Part(function_response=FunctionResponse(name="read_file", response={"output": "x" * 4000}))])
    _agrees(history)
    assert history.estimate() > 1000
    history.rollback(mark)
    _agrees(history)
    history.answer_pending("cancelled")
    _agrees(history)
    history.add_user([Part(text="and now?")])  # merged into the same user turn
    _agrees(history)
    history.replace([Content("user", (Part(text="a summary"),)), Content("model", (Part(text="ok"),))])
    _agrees(history)
    history.rollback(0)
    assert history.estimate() == 0
