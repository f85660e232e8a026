"""The environment every child process starts with: never the agent's own credentials, the rest as settings say.

One policy for every place that starts a program (shell commands, background commands, discovered tools, hooks,
stdio MCP servers): the variables the model clients read for their keys are always taken out, unless the user
names one in ``security.environmentVariableRedaction.allowed``. Gemini CLI 0.61's redaction is applied on top:
``enabled`` (or a GitHub run, as there) redacts every secret-looking name and value, ``blocked`` always redacts,
and MCP servers always get that full redaction, as in Gemini CLI (a server's own ``env`` is added afterwards, so
a user who means to hand a server a key writes it there).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# Every variable a model client of ours reads a credential from (model/auth.py, model/provider.py, and Application
# Default Credentials' key file). Base URLs, project and location are not secrets and stay.
AGENT_CREDENTIALS: frozenset[str] = frozenset(
    {"GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS"}
)

# Gemini CLI 0.61's lists (packages/core/src/services/environmentSanitization.ts), the behaviour we follow.
_ALWAYS_ALLOWED = frozenset(
    {
        "PATH",
        "SYSTEMROOT",
        "COMSPEC",
        "PATHEXT",
        "WINDIR",
        "TEMP",
        "TMP",
        "USERPROFILE",
        "SYSTEMDRIVE",
        "HOME",
        "LANG",
        "SHELL",
        "TMPDIR",
        "USER",
        "LOGNAME",
        "TERM",
        "COLORTERM",
        "ADDITIONAL_CONTEXT",
        "AVAILABLE_LABELS",
        "BRANCH_NAME",
        "DESCRIPTION",
        "EVENT_NAME",
        "GITHUB_ENV",
        "IS_PULL_REQUEST",
        "ISSUES_TO_TRIAGE",
        "ISSUE_BODY",
        "ISSUE_NUMBER",
        "ISSUE_TITLE",
        "PULL_REQUEST_NUMBER",
        "REPOSITORY",
        "TITLE",
        "TRIGGERING_ACTOR",
    }
)
_NEVER_ALLOWED = frozenset(
    {
        "CLIENT_ID",
        "DB_URI",
        "CONNECTION_STRING",
        "AWS_DEFAULT_REGION",
        "AZURE_CLIENT_ID",
        "AZURE_TENANT_ID",
        "SLACK_WEBHOOK_URL",
        "TWILIO_ACCOUNT_SID",
        "DATABASE_URL",
        "GOOGLE_CLOUD_PROJECT",
        "GOOGLE_CLOUD_ACCOUNT",
        "FIREBASE_PROJECT_ID",
    }
)
_SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|KEY|AUTH|CREDENTIAL|CREDS|PRIVATE|CERT", re.I)
_SECRET_VALUE = re.compile(
    "|".join(
        (
            r"-----BEGIN (RSA|OPENSSH|EC|PGP) PRIVATE KEY-----",
            r"-----BEGIN CERTIFICATE-----",
            r"(https?|ftp|smtp)://[^:\s]{1,1024}:[^@\s]{1,1024}@",
            r"(ghp|gho|ghu|ghs|ghr|github_pat)_[a-zA-Z0-9_]{36,}",
            r"AIzaSy[a-zA-Z0-9_\\-]{33}",
            r"AKIA[A-Z0-9]{16}",
            r"eyJ[a-zA-Z0-9_-]{0,10240}\.[a-zA-Z0-9_-]{0,10240}\.[a-zA-Z0-9_-]{0,10240}",
            r"(s|r)k_(live|test)_[0-9a-zA-Z]{24}",
            r"xox[abpr]-[a-zA-Z0-9-]+",
        )
    ),
    re.I,
)
# What every command we start is told (Gemini CLI's marker, ours) and pagers that never wait for a key.
COMMAND_MARKERS: Mapping[str, str] = {"GEMINI_CLI": "1", "AGENT_LSP": "1", "PAGER": "cat", "GIT_PAGER": "cat"}


def _upper(names: Iterable[str]) -> frozenset[str]:
    return frozenset(n.strip().upper() for n in names if n.strip())


@dataclass(frozen=True)
class ChildEnv:
    """How a session's children inherit our environment (``security.environmentVariableRedaction``)."""

    redact_secrets: bool = False  # ``enabled``: every secret-looking variable, not only the agent's credentials
    allowed: frozenset[str] = frozenset()  # upper case; passed on despite the rules below (name rules only)
    blocked: frozenset[str] = frozenset()  # upper case; never passed on
    credentials: frozenset[str] = AGENT_CREDENTIALS  # plus any variable settings name as a key's source

    @classmethod
    def of(
        cls,
        *,
        enabled: bool = False,
        allowed: Iterable[str] = (),
        blocked: Iterable[str] = (),
        key_variables: Iterable[str] = (),
    ) -> ChildEnv:
        """From settings: the redaction keys, and the variables ``model.provider`` reads keys from."""
        return cls(enabled, _upper(allowed), _upper(blocked), AGENT_CREDENTIALS | _upper(key_variables))

    def for_command(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """A shell command's, background command's, discovered tool's or hook's environment."""
        env = self.filter(os.environ if base is None else base, scan=self.redact_secrets)
        env.update(COMMAND_MARKERS)
        return env

    def for_server(self, own: Mapping[str, str], base: Mapping[str, str] | None = None) -> dict[str, str]:
        """A stdio MCP server's: always fully redacted (as Gemini CLI), then the server's own ``env`` on top."""
        env = self.filter(os.environ if base is None else base, scan=True)
        env.update(own)
        return env

    def filter(self, base: Mapping[str, str], *, scan: bool) -> dict[str, str]:
        strict = bool(base.get("GITHUB_SHA")) or base.get("SURFACE") == "Github"  # Gemini CLI's strict mode
        return {k: v for k, v in base.items() if not self._redacts(k, v, scan=scan or strict, strict=strict)}

    def _redacts(self, name: str, value: str, *, scan: bool, strict: bool) -> bool:
        key = name.upper()
        if key.startswith("GEMINI_CLI_"):
            return False
        if scan and value and _SECRET_VALUE.search(value):
            return True  # Gemini CLI checks values before the allow list: a key-shaped value never leaks
        if key.startswith("GIT_CONFIG_") or key in self.allowed:
            return False
        if key in self.blocked or key in self.credentials:
            return True
        if not scan:
            return False
        if key in _ALWAYS_ALLOWED:
            return False
        if key in _NEVER_ALLOWED or strict:
            return True
        return bool(_SECRET_NAME.search(key))
