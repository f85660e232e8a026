"""agent_lsp/child_env.py: the agent's key variables never pass; Gemini CLI 0.61's redaction (enabled, allowed,
blocked, its name and value patterns, its strict mode on GitHub) as environmentSanitization.ts has it."""

from __future__ import annotations

from agent_lsp.child_env import COMMAND_MARKERS, ChildEnv

BASE = {
    "PATH": "/usr/bin",
    "HOME": "/home/me",
    "GEMINI_API_KEY": "g",
    "GOOGLE_API_KEY": "gg",
    "OPENAI_API_KEY": "o",
    "GOOGLE_APPLICATION_CREDENTIALS": "/home/me/sa.json",
    "GOOGLE_GEMINI_BASE_URL": "http://gateway",
    "GITHUB_TOKEN": "t",
    "MY_SETTING": "plain",
    "DATABASE_URL": "postgres://db",
    "GEMINI_CLI_IDE_PORT": "1",
    "GIT_CONFIG_COUNT": "0",
    "SOMETHING": "AIzaSy" + "a" * 33,  # a Google API key by its shape
}


def test_commands_lose_only_the_agents_keys_by_default() -> None:
    env = ChildEnv().for_command(BASE)
    assert not {"GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS"} & set(env)
    assert env["GOOGLE_GEMINI_BASE_URL"] == "http://gateway" and env["GITHUB_TOKEN"] == "t"
    assert env["SOMETHING"].startswith("AIza") and env["DATABASE_URL"] == "postgres://db"
    assert {k: env[k] for k in COMMAND_MARKERS} == dict(COMMAND_MARKERS)


def test_enabled_redacts_every_secret_looking_name_and_value() -> None:
    env = ChildEnv.of(enabled=True).for_command(BASE)
    assert set(env) - set(COMMAND_MARKERS) == {
        "PATH",
        "HOME",
        "GOOGLE_GEMINI_BASE_URL",
        "MY_SETTING",
        "GEMINI_CLI_IDE_PORT",
        "GIT_CONFIG_COUNT",
    }


def test_allowed_and_blocked_and_a_model_key_variable() -> None:
    policy = ChildEnv.of(allowed=["openai_api_key"], blocked=["MY_SETTING"], key_variables=["MY_ENDPOINT_TOKEN"])
    env = policy.for_command({**BASE, "MY_ENDPOINT_TOKEN": "x"})
    assert env["OPENAI_API_KEY"] == "o" and "GEMINI_API_KEY" not in env
    assert "MY_SETTING" not in env and "MY_ENDPOINT_TOKEN" not in env


def test_servers_always_get_the_full_redaction_and_their_own_env_on_top() -> None:
    env = ChildEnv.of(allowed=["GOOGLE_API_KEY", "SOMETHING"]).for_server({"GEMINI_API_KEY": "mine"}, BASE)
    assert env["GEMINI_API_KEY"] == "mine"  # the user's own server env, on purpose
    assert "GITHUB_TOKEN" not in env and "DATABASE_URL" not in env and "OPENAI_API_KEY" not in env
    assert env["GOOGLE_API_KEY"] == "gg"  # allowed by name
    assert "SOMETHING" not in env  # a key-shaped value is redacted even when its name is allowed (Gemini CLI)


def test_a_github_run_redacts_everything_but_the_basics() -> None:
    env = ChildEnv().for_command({**BASE, "GITHUB_SHA": "abc"})
    assert set(env) - set(COMMAND_MARKERS) == {"PATH", "HOME", "GEMINI_CLI_IDE_PORT", "GIT_CONFIG_COUNT"}
