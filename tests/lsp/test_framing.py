"""Content-Length framing read defensively: sound frames in every common form, and each kind of fault
reported once, with the stream resynchronised on the next sound frame."""

from __future__ import annotations

import io
import json

from agent_lsp.adapters import wire
from agent_lsp.adapters.lsp.framing import MAX_HEADER_LINE, FrameReader


def _frame(body: bytes, header: bytes = b"Content-Length: %d\r\n\r\n") -> bytes:
    return header % len(body) + body


def _read_all(data: bytes, limit: int = 1000) -> list[bytes | str]:
    reader = FrameReader(io.BufferedReader(io.BytesIO(data)), limit)  # type: ignore[arg-type]
    out: list[bytes | str] = []
    while (item := reader.next()) is not None:
        out.append(item if isinstance(item, bytes) else f"{item.code} {item.message}")
    return out


def test_sound_frames_in_the_forms_clients_send() -> None:
    body = b'{"jsonrpc":"2.0","method":"x"}'
    data = (
        _frame(body)
        + _frame(body, b"content-length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n")
        + _frame(body, b"Content-Length: %d\n\n")  # bare LF line ends
        + b"\r\n\r\n"  # stray blank lines between frames are harmless
        + _frame(body, b"Content-Length:%d \r\n\r\n")
    )
    assert _read_all(data) == [body] * 4


def test_each_fault_is_reported_once_and_the_next_frame_is_read() -> None:
    good = b'{"jsonrpc":"2.0","id":1,"method":"x"}'
    faults = [
        b"Content-Length: -5\r\n\r\n{}",  # negative: its body then glues onto the next header line
        b"Content-Length: abc\r\n\r\n",
        b"Content-Type: text/plain\r\n\r\n",
        b"no header at all\r\nstill junk\r\nmore: junk\r\n\r\n",
        b"x" * (MAX_HEADER_LINE * 3) + b"\r\n",  # an overlong line is dropped without being kept
    ]
    for fault in faults:
        items = _read_all(fault + _frame(good))
        assert len(items) == 2 and isinstance(items[0], str) and items[1] == good, (fault[:40], items)
        assert items[0].startswith(f"{wire.PARSE_ERROR} Parse error")


def test_oversized_frames_are_skipped_and_truncated_input_ends_quietly() -> None:
    good = b'{"jsonrpc":"2.0","id":1,"method":"x"}'
    items = _read_all(_frame(b"[" * 5000) + _frame(good), limit=1000)
    assert items[0] == f"{wire.PARSE_ERROR} Parse error: a frame of 5000 bytes or more exceeds the 1000-byte limit"
    assert items[1] == good
    assert _read_all(b'Content-Length: 50\r\n\r\n{"jsonrpc"') == []  # cut off by the end of input
    assert _read_all(b"Content-Length: 99999999999999999\r\n\r\nabc") == []


def test_decode_answers_what_cannot_be_handled() -> None:
    def code(body: bytes) -> tuple[int, object, bool] | None:
        result = wire.decode(body)
        return (result.code, result.id, result.answer) if isinstance(result, wire.Rejection) else None

    assert code(b'{"a":' * 3000) == (wire.PARSE_ERROR, None, True)
    assert code(b"\xff\xfe{}") == (wire.PARSE_ERROR, None, True)
    assert code(b"[]") == (wire.INVALID_REQUEST, None, True)
    assert code(b"5") == (wire.INVALID_REQUEST, None, True)
    assert code(b'{"jsonrpc":"2.0","id":[1],"method":"x"}') == (wire.INVALID_REQUEST, None, True)
    assert code(b'{"jsonrpc":"1.0","id":3,"method":"x"}') == (wire.INVALID_REQUEST, 3, True)
    assert code(b'{"jsonrpc":"1.0","method":"x"}') == (wire.INVALID_REQUEST, None, False)  # a notification
    assert code(b'{"jsonrpc":"2.0","id":4,"method":"x","params":5}') == (wire.INVALID_PARAMS, 4, True)
    deep = {"jsonrpc": "2.0", "id": 5, "method": "x", "params": json.loads(b'{"a":' * 150 + b"1" + b"}" * 150)}
    assert code(json.dumps(deep).encode()) == (wire.INVALID_PARAMS, 5, True)
    assert code(b'{"jsonrpc":"2.0","id":6,"result":null}') is None  # an answer: the connection's business
    assert code(b'{"jsonrpc":"2.0","id":7,"method":"x","params":[1]}') is None
