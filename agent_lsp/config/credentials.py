"""The sign-in ``agent-lsp login`` stores: one record in ``~/.agent-lsp/credentials.json`` (mode 0600), its secret
in the OS keyring when a real keyring backend is available, else in that same user-only file.

Nothing here talks to a model: checking credentials is the login command's job. Sessions read the record only
as the last source of credentials (see ``runtime/clients.py`` and docs/auth.md).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from agent_lsp.atomic_file import write_atomic
from agent_lsp.config import paths

log = logging.getLogger(__name__)

Kind = Literal["gemini", "vertex", "openai"]
KINDS: tuple[Kind, ...] = ("gemini", "vertex", "openai")
KEYRING_SERVICE = "agent-lsp"
FILE_NAME = "credentials.json"
OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
# Every variable a sign-in may stand for: when the sign-in is used, the environment's own values of these are set
# aside, so a stray one (GOOGLE_GENAI_USE_VERTEXAI, OPENAI_MODEL, …) cannot bend it into another provider.
VARIABLES = (
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_VERTEX_BASE_URL",
    "OPENAI_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_MODEL",
)


class CredentialError(Exception):
    """The stored sign-in cannot be read or written (a broken file, a keyring that refused)."""


@dataclass(frozen=True, repr=False)
class SignIn:
    """What the user signed in with. ``api_key`` is a secret: never in repr, messages or logs."""

    kind: Kind
    api_key: str | None = None
    project: str | None = None  # Vertex AI
    location: str | None = None  # Vertex AI
    base_url: str | None = None  # the OpenAI-compatible endpoint, or a Gemini / Vertex gateway
    model: str | None = None  # the OpenAI-compatible endpoint's model

    def __repr__(self) -> str:
        key = "'***'" if self.api_key else "None"
        return (
            f"SignIn(kind={self.kind!r}, api_key={key}, project={self.project!r}, location={self.location!r}, "
            f"base_url={self.base_url!r}, model={self.model!r})"
        )

    __str__ = __repr__

    def variables(self) -> dict[str, str]:
        """The environment variables this sign-in stands for (what a user would otherwise export)."""
        out: dict[str, str] = {}
        if self.kind == "gemini":
            _put(out, "GEMINI_API_KEY", self.api_key)
            _put(out, "GOOGLE_GEMINI_BASE_URL", self.base_url)
        elif self.kind == "vertex":
            out["GOOGLE_GENAI_USE_VERTEXAI"] = "true"
            _put(out, "GOOGLE_CLOUD_PROJECT", self.project)
            _put(out, "GOOGLE_CLOUD_LOCATION", self.location)
            _put(out, "GOOGLE_API_KEY", self.api_key)
            _put(out, "GOOGLE_VERTEX_BASE_URL", self.base_url)
        else:
            out["OPENAI_BASE_URL"] = self.base_url or OPENAI_DEFAULT_URL
            _put(out, "OPENAI_API_KEY", self.api_key)
            _put(out, "OPENAI_MODEL", self.model)
        return out

    def describe(self) -> str:
        """A short, secret-free phrase, e.g. "Gemini API key" or "Vertex AI project p in us-central1"."""
        if self.kind == "gemini":
            via = f" via {self.base_url}" if self.base_url else ""
            return f"Gemini API key{via}"
        if self.kind == "vertex":
            if self.project and self.location:
                return f"Vertex AI project {self.project} in {self.location}"
            return "Vertex AI express API key"
        model = f", model {self.model}" if self.model else ""
        key = "with a key" if self.api_key else "without a key"
        return f"OpenAI-compatible endpoint {self.base_url or OPENAI_DEFAULT_URL} ({key}{model})"


def _put(out: dict[str, str], name: str, value: str | None) -> None:
    if value:
        out[name] = value


def stored_path() -> Path:
    """``$AGENT_LSP_HOME/credentials.json`` (default ``~/.agent-lsp``): our own folder, not ``~/.gemini``, whose
    files are Gemini CLI's and in its formats."""
    return paths.state_dir() / FILE_NAME


# Secrets read from a keyring, by (record path, stamp): asking a keyring costs its import and backend detection
# (tens of milliseconds) and a round trip, so a process asks once per record (each save writes a new stamp).
_keyring_cache: dict[tuple[str, str], str] = {}
_cache_lock = threading.Lock()


def _forget_cached(path: Path) -> None:
    with _cache_lock:
        for key in [k for k in _keyring_cache if k[0] == str(path)]:
            del _keyring_cache[key]


class CredentialStore:
    """Reads, writes and removes the one stored sign-in. Reading is cheap when nobody signed in (one missing
    file); a keyring is asked only when the record says the secret is there, once per process and record."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or stored_path()

    def load(self) -> SignIn | None:
        """The stored sign-in, or None when there is none. Raises CredentialError when it cannot be read."""
        record = read_private(self.path, "run `agent-lsp login` again")
        if record is None:
            return None
        if not isinstance(record, dict) or record.get("kind") not in KINDS:
            raise CredentialError(f"{self.path} is not a sign-in record: run `agent-lsp login` again")
        sign_in = SignIn(
            kind=record["kind"],
            project=_text(record, "project"),
            location=_text(record, "location"),
            base_url=_text(record, "baseUrl"),
            model=_text(record, "model"),
        )
        if record.get("keyring") is True:
            return replace(sign_in, api_key=self._keyring_secret(_text(record, "stamp") or ""))
        return replace(sign_in, api_key=_text(record, "apiKey"))

    def save(self, sign_in: SignIn, *, use_keyring: bool = True) -> str:
        """Store ``sign_in`` in place of any earlier one; returns where its secret went, for the user to read."""
        record: dict[str, Any] = {"version": 1, "kind": sign_in.kind, "stamp": secrets.token_hex(8)}
        for name, value in (
            ("project", sign_in.project),
            ("location", sign_in.location),
            ("baseUrl", sign_in.base_url),
            ("model", sign_in.model),
        ):
            if value:
                record[name] = value
        where = f"{self.path} (readable by you only)"
        backend = keyring_backend() if use_keyring and sign_in.api_key else None
        if backend is not None and sign_in.api_key:
            try:
                backend.set_password(KEYRING_SERVICE, _account(self.path), sign_in.api_key)
            except Exception as exc:  # any backend failure: the user-only file still keeps the key safe
                log.warning("the keyring refused the key (%s); keeping it in %s", type(exc).__name__, self.path)
            else:
                record["keyring"] = True
                where = f"the OS keyring ({backend_name(backend)})"
        if not record.get("keyring") and sign_in.api_key:
            record["apiKey"] = sign_in.api_key
            self._forget_keyring_secret()  # an older key must not stay behind in the keyring
        self._write(record)
        _forget_cached(self.path)
        return where

    def delete(self) -> bool:
        """Remove the stored sign-in (its keyring entry too); False when there was none."""
        existed = self.path.exists()
        self._forget_keyring_secret()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        _forget_cached(self.path)
        return existed

    def _write(self, record: dict[str, Any]) -> None:
        write_private(self.path, record)

    def _keyring_secret(self, stamp: str) -> str:
        key = (str(self.path), stamp)
        with _cache_lock:
            if key in _keyring_cache:
                return _keyring_cache[key]
        backend = keyring_backend()
        if backend is None:
            raise CredentialError(
                f"{self.path} says the key is in the OS keyring, but no keyring is available now: "
                "run `agent-lsp login` again"
            )
        try:
            secret = backend.get_password(KEYRING_SERVICE, _account(self.path))
        except Exception as exc:
            raise CredentialError(f"The OS keyring did not give the stored key ({type(exc).__name__})") from exc
        if not isinstance(secret, str) or not secret:
            raise CredentialError("The stored key is missing from the OS keyring: run `agent-lsp login` again")
        with _cache_lock:
            _keyring_cache[key] = secret
        return secret

    def _forget_keyring_secret(self) -> None:
        try:
            record = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if not (isinstance(record, dict) and record.get("keyring") is True):
            return
        backend = keyring_backend()
        if backend is None:
            return
        try:
            backend.delete_password(KEYRING_SERVICE, _account(self.path))
        except Exception as exc:  # already gone, or the keyring refused: the record goes anyway
            log.debug("keyring delete: %s", type(exc).__name__)


def read_private(path: Path, remedy: str) -> Any:
    """The JSON in ``path`` (as :func:`write_private` wrote it), or None when there is no file; CredentialError
    naming the file (and ``remedy`` for broken JSON) when it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CredentialError(f"Cannot read {path}: {exc.strerror or exc}") from exc
    try:
        return json.loads(text)
    except ValueError as exc:
        raise CredentialError(f"{path} is not valid JSON: {remedy}") from exc


def write_private(path: Path, record: Mapping[str, Any]) -> None:
    """Write ``record`` as JSON to ``path``, readable by the user only (its folder made 0700 when we make it)."""
    folder = path.parent
    if not folder.exists():
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # a folder we make: nobody else needs to list it
    # A new temp file is created 0600 and renamed into place; keep_mode=False so an older file's looser mode
    # is never carried over.
    data = json.dumps(record, indent=2).encode("utf-8") + b"\n"
    write_atomic(path, data, keep_mode=False)
    if os.name != "nt":
        os.chmod(path, 0o600)


def _text(record: Mapping[str, Any], name: str) -> str | None:
    value = record.get(name)
    return value if isinstance(value, str) and value else None


def _account(path: Path) -> str:
    """The keyring entry's user name: the record's path, so two AGENT_LSP_HOME folders keep two keys."""
    return str(path.resolve())


def keyring_backend() -> Any:
    """The keyring backend to keep a secret in, or None: the one the user configured for the keyring library
    (PYTHON_KEYRING_BACKEND or its keyringrc.cfg), else the detected one when the library recommends it
    (priority 1 or more: macOS Keychain, Windows Credential Locker, Secret Service, KWallet). The fail and null
    backends never count."""
    try:
        import keyring
        from keyring import core
        from keyring.backends import fail, null
    except ImportError:
        return None
    try:
        chosen = core.load_env() or core.load_config()
        if chosen is None:
            detected = keyring.get_keyring()
            chosen = detected if float(getattr(detected, "priority", 0)) >= 1 else None
    except Exception as exc:  # a broken keyring configuration: the file store still works
        log.debug("no usable keyring: %s", type(exc).__name__)
        return None
    if chosen is None or isinstance(chosen, fail.Keyring | null.Keyring):
        return None
    return chosen


def backend_name(backend: Any) -> str:
    name = getattr(backend, "name", None)
    return name if isinstance(name, str) and name else type(backend).__name__
