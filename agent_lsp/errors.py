"""The error tree. Who sees an error decides its class.

    AgentError                      base; never raised itself
    ├── ToolError                   a tool failed: becomes a functionResponse the model reads
    │   ├── PathOutsideWorkspace    a path resolved (symlinks too) outside every workspace root
    │   └── StaleFileError          a file changed since the agent read it; the write is refused
    ├── ModelError                  the model request failed; ends the turn with an Error event
    │   ├── ModelStreamInterrupted  the stream broke after it started (retried a few times)
    │   └── AuthError               no usable credentials: the message says what to set
    └── ConfigError                 bad settings: message names the file, the key path and the reason

Anything else that escapes is a bug and is allowed to raise.

Each class says what it means in the shared vocabulary (``meaning``: the ``error`` event carries it, adapters map it
to their codes) and, where Gemini CLI has one, the headless exit code it ends the process with (``exit_code``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from agent_lsp.vocabulary import ErrorMeaning

# Gemini CLI's exit codes of a headless run (its Fatal*Error classes); the command line and headless use them.
EXIT_FAILURE = 1
EXIT_AUTH = 41  # FatalAuthenticationError
EXIT_INPUT = 42  # FatalInputError: bad arguments or an unknown session/extension
EXIT_CONFIG = 52  # FatalConfigError
EXIT_TURN_LIMIT = 53  # FatalTurnLimitedError: maxSessionTurns reached
EXIT_CANCELLED = 130  # FatalCancellationError: Ctrl-C or SIGTERM


class AgentError(Exception):
    """Base of every error we raise on purpose."""

    meaning: ClassVar[ErrorMeaning] = "internal"
    exit_code: ClassVar[int] = EXIT_FAILURE


class ToolError(AgentError):
    """Raised inside a tool; the scheduler turns it into an error result for the model."""

    def __init__(self, message: str, error_type: str = "execution_failed") -> None:  # Gemini CLI's ToolErrorType
        super().__init__(message)
        self.error_type = error_type


class PathOutsideWorkspace(ToolError):
    def __init__(self, message: str) -> None:
        super().__init__(message, "path_not_in_workspace")


class StaleFileError(ToolError):
    """The file on disk or in the editor is not what the agent read: refuse rather than clobber."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "file_changed")


class ModelError(AgentError):
    """A model request failed. ``status`` is the HTTP status when there was one."""

    def __init__(
        self,
        message: str,
        status: int | None = None,
        retry_after: float | None = None,
        *,
        retryable: bool | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after  # seconds, from Retry-After or google.rpc.RetryInfo
        self._retryable = retryable

    @property
    def retryable(self) -> bool:
        """429, 499, 5xx and network failures (no status) are worth another try, unless said otherwise."""
        if self._retryable is not None:
            return self._retryable
        s = self.status
        return s is None or s in (429, 499) or s >= 500


class ModelStreamInterrupted(ModelError):
    """The connection broke after some chunks arrived."""


class AuthError(ModelError):
    """No credentials, or the server refused them. Never worth retrying: the user must act."""

    meaning: ClassVar[ErrorMeaning] = "auth_required"
    exit_code: ClassVar[int] = EXIT_AUTH

    @property
    def retryable(self) -> bool:
        return False


class ConfigError(AgentError):
    """A settings problem. ``file`` and ``key`` locate it."""

    exit_code: ClassVar[int] = EXIT_CONFIG

    def __init__(self, message: str, file: str | None = None, key: str | None = None) -> None:
        where = ": ".join(x for x in (file, key) if x)
        super().__init__(f"{where}: {message}" if where else message)
        self.file = file
        self.key = key
        self.reason = message
