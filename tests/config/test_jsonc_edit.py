"""Editing one value of a JSONC settings file keeps the user's comments, order and layout."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from agent_lsp.config.jsonc import parse_jsonc
from agent_lsp.config.jsonc_edit import set_value
from agent_lsp.config.skills import set_disabled

USER_FILE = """\ufeff{
  // my model, do not touch
  "model": { "name": "gemini-2.5-pro" }, /* trailing */
  "skills": {
    "disabled": ["old"], // why: noisy
  },
  "ui": {"theme": "dark"} // last
}
"""


def test_replacing_a_value_keeps_every_other_byte() -> None:
    out = set_value(USER_FILE, ("skills", "disabled"), ["old", "new"])
    assert out == USER_FILE.replace('["old"]', '[\n      "old",\n      "new"\n    ]')
    assert parse_jsonc(out)["skills"]["disabled"] == ["old", "new"]


def test_missing_keys_are_inserted_after_the_last_member_and_its_comment() -> None:
    out = set_value(USER_FILE, ("tools", "sandbox"), False)
    assert "// last\n" in out and "// my model, do not touch" in out and "/* trailing */" in out
    assert out.index("// last") < out.index('"tools"')
    data = parse_jsonc(out)
    assert data["tools"] == {"sandbox": False} and data["ui"] == {"theme": "dark"}
    nested = set_value(USER_FILE, ("skills", "enabled"), True)
    assert '    "disabled": ["old"], // why: noisy\n    "enabled": true\n  },' in nested


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", {"a": {"b": 1}}),
        ("{}", {"a": {"b": 1}}),
        ("{ // nothing yet\n}", {"a": {"b": 1}}),
        ('{"x": 1}', {"x": 1, "a": {"b": 1}}),
        ('{"x": 1,}', {"x": 1, "a": {"b": 1}}),
        ('{"a": {"b": 0, "c": [1, {"d": "}"}]}}', {"a": {"b": 1, "c": [1, {"d": "}"}]}}),
        ('{"a": {}, "a": {"b": 5}}', {"a": {"b": 1}}),  # the last duplicate is the one JSON reads
        ("{ // c\n,}", {"a": {"b": 1}}),  # a lone trailing comma, which the settings loader accepts
        ('{"a": {,}, "z": [,]}', {"a": {"b": 1}, "z": []}),
    ],
)
def test_edge_shapes(text: str, expected: object) -> None:
    out = set_value(text, ("a", "b"), 1)
    assert parse_jsonc(out) == expected
    if "// nothing yet" in text:
        assert "// nothing yet" in out


def test_refuses_what_it_cannot_edit() -> None:
    with pytest.raises(ValueError, match="not an object"):
        set_value("[1, 2]", ("a",), 1)
    with pytest.raises(ValueError, match="'a' is not an object"):
        set_value('{"a": 3}', ("a", "b"), 1)


def test_random_documents_get_the_value_and_keep_the_rest() -> None:
    rng = random.Random(7)
    for _ in range(200):
        doc: dict[str, Any] = {f"k{i}": rng.choice([1, "s", None, [1, 2], {"n": i}]) for i in range(rng.randint(0, 5))}
        text = json.dumps(doc, indent=rng.choice([None, 2, 4]))
        key = rng.choice([*doc, "fresh"]) if doc else "fresh"
        out = set_value(text, (key, "leaf"), [rng.randint(0, 9)]) if isinstance(doc.get(key), dict) else None
        if out is None:
            out = set_value(text, (key,), {"leaf": 1})
            expected = {**doc, key: {"leaf": 1}}
        else:
            expected = {**doc, key: {**doc[key], "leaf": parse_jsonc(out)[key]["leaf"]}}
        assert parse_jsonc(out) == expected


def test_skills_disable_keeps_the_users_comments(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(USER_FILE, encoding="utf-8")
    assert set_disabled("new", True, path) == ["old", "new"]
    text = path.read_text(encoding="utf-8")
    assert "// my model, do not touch" in text and "// why: noisy" in text and "/* trailing */" in text
    assert parse_jsonc(text)["skills"]["disabled"] == ["old", "new"]


COMMENTS = (" // c\n", " /* b */ ", "\n// x, y: {}\n", " /* } ] , */ ", "\n")


def _with_comments(text: str, rng: random.Random) -> str:
    """Comments (holding braces, commas and colons) after every ``, : { [`` outside strings, by chance."""
    out: list[str] = []
    in_string = escaped = False
    for char in text:
        out.append(char)
        if in_string:
            escaped, in_string = (False, in_string) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in ",:{[" and rng.random() < 0.5:
            out.append(rng.choice(COMMENTS))
    return "".join(out)


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth < 3 and roll < 0.3:
        return {f'k{i}"\\u00e9': _value(rng, depth + 1) for i in range(rng.randint(0, 3))}
    if roll < 0.5:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 2))]
    return rng.choice([1, -2.5e3, 's}\\"', None, True, "é//x"])


def test_random_commented_documents_keep_their_values() -> None:
    rng = random.Random(1)
    for _ in range(500):
        doc = {"skills": _value(rng), "other": _value(rng)}
        text = _with_comments(json.dumps(doc, indent=rng.choice([None, 2])), rng)
        base = parse_jsonc(text)
        if not isinstance(base["skills"], dict):
            with pytest.raises(ValueError, match="'skills' is not an object"):
                set_value(text, ("skills", "disabled"), ["x"])
            continue
        out = set_value(text, ("skills", "disabled"), ["x"])
        assert parse_jsonc(out) == {**base, "skills": {**base["skills"], "disabled": ["x"]}}, text
