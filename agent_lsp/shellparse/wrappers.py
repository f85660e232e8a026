"""Following wrappers to the commands they run: eval, bash -c, su -c, sudo/env/xargs/..., find -exec, fed scripts.

This is half of the security boundary: every command string a program runs from its arguments must be found
here, or be reported as not literal (None), so that no allow rule can cover what a parse cannot see."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_lsp.shellparse.nodes import encode_text, literal_value

if TYPE_CHECKING:
    from tree_sitter import Node

_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "busybox"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


@dataclass(frozen=True)
class _Wrapper:
    """A program that runs the command given in its arguments (``sudo rm x`` runs ``rm x``)."""

    with_value: frozenset[str] = frozenset()  # options that take the next word as their value
    positional: int = 0  # words between the options and the command (``timeout 5 cmd``)
    assignments: bool = False  # skips NAME=VALUE words (env)
    no_command: frozenset[str] = frozenset()  # options after which no command runs (``command -v``)


_WRAPPERS: dict[str, _Wrapper] = {
    "env": _Wrapper(frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}), assignments=True),
    "sudo": _Wrapper(frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-R", "-T", "-U", "-r", "-t", "--user"})),
    "doas": _Wrapper(frozenset({"-u", "-C"})),
    "nohup": _Wrapper(),
    "setsid": _Wrapper(),
    "builtin": _Wrapper(),
    "exec": _Wrapper(frozenset({"-a"})),
    "command": _Wrapper(no_command=frozenset({"-v", "-V"})),
    "time": _Wrapper(frozenset({"-f", "-o", "--format", "--output"})),
    "nice": _Wrapper(frozenset({"-n", "--adjustment"})),
    "ionice": _Wrapper(frozenset({"-c", "-n", "--class", "--classdata"}), no_command=frozenset({"-p", "-P", "-u"})),
    "timeout": _Wrapper(frozenset({"-s", "-k", "--signal", "--kill-after"}), positional=1),
    "stdbuf": _Wrapper(frozenset({"-i", "-o", "-e"})),
    "chroot": _Wrapper(frozenset({"--userspec", "--groups"}), positional=1),
    "flock": _Wrapper(frozenset({"-w", "--timeout", "-E", "--conflict-exit-code"}), positional=1),
    "xargs": _Wrapper(
        frozenset({"-a", "-E", "-I", "-L", "-n", "-P", "-s", "-d", "--arg-file", "--delimiter", "--max-args"})
    ),
}


def inner_commands(root: str, words: list[Node], values: list[str | None], source: bytes) -> Iterator[bytes | None]:
    """The command strings a program runs from its arguments (None where they are not literal)."""

    def from_word(i: int) -> bytes | None:
        """The source text of the words from ``i`` on, as the command they form."""
        if i >= len(words):
            return None
        if any(v is None for v in values[i:]):
            return None
        return source[words[i].start_byte : words[-1].end_byte]

    def string_arg(i: int) -> bytes | None:
        return encode_text(values[i]) if i < len(values) else None

    if root == "eval":
        if values:
            yield None if any(v is None for v in values) else encode_text(" ".join(v for v in values if v is not None))
        return
    if root in _SHELLS:
        i = _shell_command_string(values)
        if i is not None:
            yield string_arg(i)
        return
    if root in ("su", "runuser"):
        for i, v in enumerate(values):
            if v in ("-c", "--command") and i + 1 < len(values):
                yield string_arg(i + 1)
            elif v is not None and v.startswith("--command="):
                yield encode_text(v.removeprefix("--command="))
        return
    if root == "trap":
        first = 1 if values and values[0] == "--" else 0
        if first < len(values) and values[first] not in (None, "-", "") and not str(values[first]).startswith("-"):
            yield string_arg(first)
        elif first < len(values) and values[first] is None:
            yield None
        return
    if root == "watch":
        i = _skip_options(values, _Wrapper(frozenset({"-n", "--interval", "-d", "-q"})))
        if i is not None and i < len(values):
            joined = values[i:]
            yield None if any(v is None for v in joined) else encode_text(" ".join(v for v in joined if v is not None))
        return
    if root == "find":
        i = 0
        while i < len(values):
            if values[i] in _FIND_EXEC:
                end = next((j for j in range(i + 1, len(values)) if values[j] in (";", "+")), len(values))
                if end > i + 1:
                    inner = values[i + 1 : end]
                    yield (
                        None
                        if any(v is None for v in inner)
                        else source[words[i + 1].start_byte : words[end - 1].end_byte]
                    )
                i = end
            i += 1
        return
    wrapper = _WRAPPERS.get(root)
    if wrapper is None:
        return
    if root == "env":
        for i, v in enumerate(values):
            if v in ("-S", "--split-string") and i + 1 < len(values):
                yield string_arg(i + 1)
            elif v is not None and v.startswith("--split-string="):
                yield encode_text(v.removeprefix("--split-string="))
    start = _skip_options(values, wrapper)
    if start is None:
        yield None
    elif start < len(values):
        yield from_word(start)


def _skip_options(values: list[str | None], wrapper: _Wrapper) -> int | None:
    """Index of the wrapped command's first word; None when an option is not literal; len() for none."""
    i = 0
    while i < len(values):
        v = values[i]
        if v is None:
            return None
        if v == "--":
            i += 1
            break
        if v in wrapper.no_command:
            return len(values)
        if wrapper.assignments and "=" in v and not v.startswith("-"):
            i += 1
            continue
        if v.startswith("-") and len(v) > 1:
            i += 2 if v in wrapper.with_value else 1
            continue
        break
    return i + wrapper.positional if i + wrapper.positional <= len(values) else len(values)


def _shell_command_string(values: list[str | None]) -> int | None:
    """For ``bash [options] -c STRING``: the index of STRING."""
    takes_value = {"-o", "+o", "-O", "+O", "--rcfile", "--init-file"}
    wants_string = False
    i = 0
    while i < len(values):
        v = values[i]
        if v is None:
            return i if wants_string else None
        if v in takes_value:
            i += 2
            continue
        if v == "--" or not v.startswith(("-", "+")) or v == "-":
            return i if wants_string else None
        if not v.startswith("--") and "c" in v[1:]:
            wants_string = True
        i += 1
    return None


def fed_scripts(root: str, redirects: list[Node], values: list[str | None]) -> Iterator[bytes | None]:
    """A shell given no script reads commands from its here-document or here-string: check those too.
    None stands for commands read from a pipe or a file on standard input, which no parse can see."""
    if root not in _SHELLS or any(
        v is not None and v.startswith("-") and not v.startswith("--") and "c" in v[1:] for v in values
    ):
        return
    if "-s" not in values and any(v is None or not v.startswith(("-", "+")) for v in values):
        return  # a script file (``bash build.sh``): its commands are the file's, as for any program
    fed = False
    for r in redirects:
        if r.type == "heredoc_redirect":
            for body in (c for c in r.children if c.type == "heredoc_body"):
                fed = True
                yield body.text or b""
        elif r.type == "herestring_redirect" and r.named_child_count:
            fed = True
            yield encode_text(literal_value(r.named_child(0)))
    if not fed:
        yield None
