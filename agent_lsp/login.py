"""``agent-lsp login`` and ``agent-lsp logout``: take a Gemini API key, Vertex AI settings or an OpenAI-compatible
endpoint, check them with one cheap request through the real client, and store them (config/credentials.py).

Prompts go to stderr and a key is read with echo off; on a pipe the key is the first line of stdin. A key is never
a command-line argument (other users can read those), never printed and never logged. Only argparse at import time.
"""

from __future__ import annotations

import argparse
import sys

TYPE_CHECKING = False  # typing itself is kept off the start-up path (``cli`` imports this module)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TextIO

    from agent_lsp.config.credentials import SignIn

CHECK_TIMEOUT_S = 30.0


def add_parsers(sub: Any) -> None:
    login = sub.add_parser(
        "login",
        help="sign in: check a Gemini API key, Vertex AI or an OpenAI-compatible endpoint, and store it",
        description="Asks on a terminal (the key with echo off); in a script, pass the choices as flags and the "
        "key as the first line of stdin. The credentials are checked with one model-list request, then kept in the "
        "OS keyring or in ~/.agent-lsp/credentials.json (readable by you only). See docs/auth.md.",
    )
    kind = login.add_mutually_exclusive_group()
    kind.add_argument("--gemini", dest="kind", action="store_const", const="gemini", help="a Gemini API key")
    kind.add_argument("--vertex", dest="kind", action="store_const", const="vertex", help="Vertex AI")
    kind.add_argument(
        "--openai", dest="kind", action="store_const", const="openai", help="an OpenAI-compatible endpoint"
    )
    login.add_argument("--project", help="Vertex AI: the Google Cloud project (with --location: ADC credentials)")
    login.add_argument("--location", help="Vertex AI: the region, e.g. us-central1")
    login.add_argument("--base-url", help="the OpenAI-compatible endpoint (…/v1), or a Gemini / Vertex AI gateway")
    login.add_argument("--model", help="OpenAI-compatible: the model to use (default: asked, or the only one served)")
    login.add_argument("--no-key", action="store_true", help="OpenAI-compatible: the endpoint needs no key")
    login.add_argument("--no-check", action="store_true", help="store without checking (e.g. offline)")
    login.add_argument("--check-only", action="store_true", help="check the credentials, store nothing")
    login.add_argument(
        "--no-keyring", action="store_true", help="keep the key in the user-only file even if a keyring is available"
    )
    sub.add_parser("logout", help="remove the sign-in `agent-lsp login` stored")


class LoginInput(Exception):
    """Something needed was not given (named, so the user knows which flag or answer is missing)."""


class Console:
    """Where questions are asked: prompts on stderr, answers from stdin, a key with echo off on a terminal."""

    def __init__(self, stdin: TextIO, err: TextIO, secret: Callable[[str], str] | None = None) -> None:
        self.stdin = stdin
        self.err = err
        self.interactive = stdin.isatty()
        self._secret = secret
        self._piped_key: str | None = None

    def ask(self, question: str, default: str | None = None) -> str:
        if not self.interactive:
            if default is not None:
                return default
            raise LoginInput(f"{question.rstrip(': ')}: needed (pass it as a flag)")
        shown = f"{question} [{default}]: " if default else f"{question}: "
        self.err.write(shown)
        self.err.flush()
        answer = self.stdin.readline()
        if not answer:
            raise LoginInput("input ended")
        return answer.strip() or (default or "")

    def key(self, question: str, *, optional: bool = False) -> str | None:
        """A secret: asked with echo off on a terminal, else the first line of stdin."""
        if self.interactive:
            if self._secret is not None:
                value = self._secret(f"{question}: ")
            else:
                import getpass

                value = getpass.getpass(f"{question}: ", stream=self.err)
        else:
            if self._piped_key is None:
                self._piped_key = self.stdin.readline().strip()
            value = self._piped_key
        value = value.strip()
        if not value and not optional:
            raise LoginInput("no key given (type it at the prompt, or pipe it as the first line of stdin)")
        return value or None

    def say(self, text: str) -> None:
        self.err.write(text + "\n")
        self.err.flush()


def run_login(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    from agent_lsp.errors import EXIT_CANCELLED

    out, err = out or sys.stdout, err or sys.stderr
    try:
        return _login(args, out, err)
    except KeyboardInterrupt:
        err.write("\nagent-lsp login: cancelled, nothing stored\n")
        return EXIT_CANCELLED


def _login(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from agent_lsp.errors import EXIT_AUTH, EXIT_FAILURE, EXIT_INPUT

    console = Console(sys.stdin, err)
    try:
        sign_in = gather(args, console)
    except LoginInput as exc:
        err.write(f"agent-lsp login: {exc}\n")
        return EXIT_INPUT
    if not args.no_check:
        console.say(f"Checking {sign_in.describe()} …")
        try:
            sign_in = _checked(sign_in, console)
        except LoginRefused as exc:
            err.write(f"agent-lsp login: {exc}\n")
            return EXIT_AUTH
        except LoginInput as exc:
            err.write(f"agent-lsp login: {exc}\n")
            return EXIT_INPUT
        except CheckFailed as exc:
            err.write(f"agent-lsp login: {exc} (store it anyway with --no-check)\n")
            return EXIT_FAILURE
    if args.check_only:
        out.write(f"Checked: {sign_in.describe()}\n")
        return 0
    from agent_lsp.config.credentials import CredentialStore

    try:
        where = CredentialStore().save(sign_in, use_keyring=not args.no_keyring)
    except OSError as exc:
        err.write(f"agent-lsp login: could not store the sign-in: {exc.strerror or exc}\n")
        return EXIT_FAILURE
    out.write(f"Signed in: {sign_in.describe()}, stored in {where}.\n")
    elsewhere = _credentials_elsewhere()
    if elsewhere:
        console.say(
            f"Note: your environment or ~/.gemini/.env / ~/.env already give credentials ({elsewhere}); they come "
            "before this sign-in (see docs/auth.md)."
        )
    if console.interactive:
        console.say("You can close this terminal and go back to your editor.")
    return 0


def run_logout(out: TextIO | None = None, err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    from agent_lsp.config.credentials import CredentialError, CredentialStore

    store = CredentialStore()
    try:
        before = store.load()
    except CredentialError:
        before = None  # unreadable: removed all the same
    removed = store.delete()
    if removed:
        what = before.describe() if before else "the stored sign-in"
        out.write(f"Signed out: removed {what} ({store.path}).\n")
    else:
        out.write("No stored sign-in to remove.\n")
    elsewhere = _credentials_elsewhere()
    if elsewhere:
        err.write(f"Still usable, from the environment or ~/.gemini/.env / ~/.env: {elsewhere}.\n")
    return 0


def gather(args: argparse.Namespace, console: Console) -> SignIn:
    """The sign-in from the flags, asking for what they leave out (or failing, when nobody can answer)."""
    from agent_lsp.config.credentials import SignIn

    kind = args.kind or ("vertex" if args.project or args.location else None)
    if kind is None and args.model:
        kind = "openai"
    if kind is None:
        kind = _choose_kind(console) if console.interactive else "gemini"
    if kind == "gemini":
        if console.interactive and not args.base_url:
            console.say("Get a key at https://aistudio.google.com/apikey")
        return SignIn("gemini", api_key=console.key("Gemini API key"), base_url=args.base_url)
    if kind == "vertex":
        project = args.project or console.ask("Google Cloud project (blank for an express-mode API key)", "")
        location = args.location or (console.ask("Location", "us-central1") if project else None)
        if project and location:
            # Application Default Credentials (gcloud auth application-default login); a key is not used then.
            return SignIn("vertex", project=project, location=location, base_url=args.base_url)
        return SignIn("vertex", api_key=console.key("Vertex AI API key"), base_url=args.base_url)
    from agent_lsp.config.credentials import OPENAI_DEFAULT_URL

    base_url = (args.base_url or console.ask("Endpoint URL", OPENAI_DEFAULT_URL)).rstrip("/")
    if not base_url.startswith(("http://", "https://")):
        raise LoginInput(f"--base-url must be an http(s) URL, got {base_url!r}")
    key = None if args.no_key else console.key("API key (blank if the endpoint needs none)", optional=True)
    return SignIn("openai", api_key=key, base_url=base_url, model=args.model)


def _choose_kind(console: Console) -> str:
    console.say("Sign in to agent-lsp with:\n  1) a Gemini API key\n  2) Vertex AI\n  3) an OpenAI-compatible endpoint")
    answer = console.ask("Choose 1, 2 or 3", "1")
    choice = {"1": "gemini", "2": "vertex", "3": "openai"}.get(answer.strip())
    if choice is None:
        raise LoginInput(f"no such choice: {answer!r}")
    return choice


class LoginRefused(Exception):
    """The endpoint refused the credentials."""


class CheckFailed(Exception):
    """The credentials could not be checked (network, a wrong URL, a server error)."""


def _checked(sign_in: SignIn, console: Console) -> SignIn:
    """``sign_in`` after one model-list request accepted it; for an OpenAI-compatible endpoint the model is
    then chosen from the list when none was given."""
    import asyncio
    from dataclasses import replace

    models = asyncio.run(check(sign_in))
    console.say(f"The credentials work ({len(models)} model(s) listed).")
    if sign_in.kind != "openai" or sign_in.model:
        if sign_in.kind == "openai" and models and sign_in.model not in models:
            console.say(f"Note: {sign_in.model} is not in the endpoint's list: {', '.join(models[:10])}")
        return sign_in
    if len(models) == 1:
        return replace(sign_in, model=models[0])
    if not models:
        raise LoginInput("the endpoint lists no models: pass --model")
    if not console.interactive:
        raise LoginInput(f"pass --model, one of: {', '.join(models[:20])}")
    for i, name in enumerate(models[:30], 1):
        console.say(f"  {i}) {name}")
    answer = console.ask("Model (number or name)", "1")
    model = models[int(answer) - 1] if answer.isdigit() and 0 < int(answer) <= min(30, len(models)) else answer
    return replace(sign_in, model=model)


async def check(sign_in: SignIn, timeout_s: float = CHECK_TIMEOUT_S) -> list[str]:
    """List the models through the real client (google-genai, or the OpenAI-compatible client): one cheap request
    that needs valid credentials. Raises LoginRefused or CheckFailed, with the key scrubbed from the message."""
    import asyncio

    from agent_lsp.errors import AuthError, ModelError

    env = sign_in.variables()
    try:
        async with asyncio.timeout(timeout_s):
            return await _list_models(sign_in, env, timeout_s)
    except AuthError as exc:
        raise LoginRefused(_scrub(str(exc), sign_in)) from None
    except ModelError as exc:
        if exc.status in (400, 401, 403):  # Gemini answers a bad key with 400 API_KEY_INVALID
            raise LoginRefused(_scrub(str(exc), sign_in)) from None
        raise CheckFailed(_scrub(str(exc), sign_in)) from None
    except TimeoutError:
        raise CheckFailed(f"no answer within {timeout_s:.0f} s") from None
    except Exception as exc:  # e.g. google-auth finding no Application Default Credentials
        raise CheckFailed(_scrub(f"{type(exc).__name__}: {exc}", sign_in)) from None


async def _list_models(sign_in: SignIn, env: dict[str, str], timeout_s: float) -> list[str]:
    if sign_in.kind == "openai":
        from agent_lsp.model.openai_compat import OpenAIClient
        from agent_lsp.model.provider import openai_config

        client = OpenAIClient(openai_config(None, env))
        try:
            return await client.list_models(timeout_s)
        finally:
            await client.aclose()
    from agent_lsp.model.auth import resolve_auth
    from agent_lsp.model.gemini import GeminiClient

    gemini = GeminiClient(resolve_auth(env), timeout_s=timeout_s)
    try:
        listed = await gemini.list_models()
    finally:
        await gemini.aclose()
    return [str(m.get("name", "")).removeprefix("models/") for m in listed if m.get("name")]


def _scrub(message: str, sign_in: SignIn) -> str:
    key = sign_in.api_key
    return message.replace(key, "***") if key else message


def _credentials_elsewhere() -> str | None:
    """What the environment and the user-level .env files give as credentials (they win over a sign-in), if any."""
    import os

    from agent_lsp.config.dotenv import load_env_files
    from agent_lsp.errors import AuthError
    from agent_lsp.model.auth import resolve_auth
    from agent_lsp.model.provider import resolve_provider

    env = dict(os.environ)
    load_env_files([], trusted=False, env=env)
    try:
        choice = resolve_provider(None, env)
    except AuthError:
        return None
    if choice.openai is not None:
        return choice.openai.describe()
    return resolve_auth(env).describe()
