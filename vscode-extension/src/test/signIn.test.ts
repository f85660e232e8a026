// Agent: Sign In / Sign Out: credentials kept in SecretStorage only after the server's check accepted them, handed
// to the server in its environment (replacing any other provider's variables), and the key in no message.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type Credentials,
  type SignInPrompts,
  SECRET_KEY,
  loadCredentials,
  loginCheck,
  parseCredentials,
  serverEnvironment,
  signIn,
  signOut,
} from "../signIn";

const KEY = "AIza-vscode-secret";

class MemorySecrets {
  readonly values = new Map<string, string>();
  async get(key: string): Promise<string | undefined> {
    return this.values.get(key);
  }
  async store(key: string, value: string): Promise<void> {
    this.values.set(key, value);
  }
  async delete(key: string): Promise<void> {
    this.values.delete(key);
  }
}

function answers(kind: "gemini" | "openai" | undefined, values: { key?: string; url?: string; model?: string }): SignInPrompts {
  return {
    kind: async () => kind,
    apiKey: async () => values.key,
    baseUrl: async () => values.url,
    model: async () => values.model,
  };
}

test("a key is kept only after the check accepts it, and no message shows it", async () => {
  const secrets = new MemorySecrets();
  const checked: Credentials[] = [];
  const refuse = async (c: Credentials): Promise<string> => {
    checked.push(c);
    return `Gemini API: 400 INVALID_ARGUMENT — API key not valid (${KEY})`;
  };
  const refused = await signIn(secrets, answers("gemini", { key: ` ${KEY} ` }), refuse);
  assert.equal(refused.ok, false);
  assert.ok(refused.message.startsWith("Sign-in failed: Gemini API: 400"));
  assert.ok(!refused.message.includes(KEY));
  assert.deepEqual(checked, [{ kind: "gemini", apiKey: KEY }]);
  assert.equal(secrets.values.size, 0);

  const accepted = await signIn(secrets, answers("gemini", { key: KEY }), async () => undefined);
  assert.equal(accepted.ok, true);
  assert.ok(!accepted.message.includes(KEY));
  assert.deepEqual(await loadCredentials(secrets), { kind: "gemini", apiKey: KEY });

  // Dismissing a question changes nothing and says nothing.
  assert.deepEqual(await signIn(secrets, answers(undefined, {}), refuse), { ok: false, message: "" });
  assert.deepEqual(await signIn(secrets, answers("openai", { url: "http://x/v1" }), refuse), { ok: false, message: "" });
  assert.deepEqual(await loadCredentials(secrets), { kind: "gemini", apiKey: KEY });

  assert.equal(await signOut(secrets), true);
  assert.equal(secrets.values.has(SECRET_KEY), false);
  assert.equal(await signOut(secrets), false);
});

test("an OpenAI-compatible endpoint: URL, model and an optional key", async () => {
  const secrets = new MemorySecrets();
  const ok = await signIn(secrets, answers("openai", { url: "http://localhost:11434/v1/", model: "qwen3", key: "" }), async () => undefined);
  assert.equal(ok.ok, true);
  assert.deepEqual(await loadCredentials(secrets), { kind: "openai", baseUrl: "http://localhost:11434/v1", model: "qwen3" });
  assert.equal(parseCredentials("{not json"), undefined);
  assert.equal(parseCredentials(JSON.stringify({ kind: "openai", baseUrl: "http://x/v1" })), undefined);
});

test("the server's environment: the sign-in replaces every credential variable of the base", () => {
  const base = { PATH: "/bin", GEMINI_API_KEY: "from-shell", OPENAI_BASE_URL: "http://old/v1", GOOGLE_GENAI_USE_VERTEXAI: "true" };
  assert.deepEqual(serverEnvironment(base, undefined), base);
  assert.deepEqual(serverEnvironment(base, { kind: "gemini", apiKey: KEY }), { PATH: "/bin", GEMINI_API_KEY: KEY });
  // Where to reach the provider is not a credential: a company gateway, the Vertex project and location stay.
  const gateway = {
    PATH: "/bin",
    GOOGLE_API_KEY: "old",
    GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:8080",
    GOOGLE_VERTEX_BASE_URL: "http://127.0.0.1:8081",
    GOOGLE_CLOUD_PROJECT: "p",
    GOOGLE_CLOUD_LOCATION: "europe-west4",
  };
  const { GOOGLE_API_KEY: _old, ...kept } = gateway;
  assert.deepEqual(serverEnvironment(gateway, { kind: "gemini", apiKey: KEY }), { ...kept, GEMINI_API_KEY: KEY });
  assert.deepEqual(serverEnvironment(base, { kind: "openai", baseUrl: "http://h/v1", model: "m", apiKey: "k" }), {
    PATH: "/bin",
    OPENAI_BASE_URL: "http://h/v1",
    OPENAI_MODEL: "m",
    OPENAI_API_KEY: "k",
  });
  assert.equal(base.GEMINI_API_KEY, "from-shell"); // the base is not changed
});

test("the check runs the server's own login command, the key on stdin and never in the arguments", () => {
  const bundled = ["-P", "-m", "agent_lsp", "lsp", "--debug"];
  assert.deepEqual(loginCheck(bundled, { kind: "gemini", apiKey: KEY }), {
    args: ["-P", "-m", "agent_lsp", "login", "--check-only", "--gemini"],
    input: `${KEY}\n`,
  });
  const local = loginCheck(["lsp"], { kind: "openai", baseUrl: "http://h/v1", model: "m" });
  assert.deepEqual(local, {
    args: ["login", "--check-only", "--openai", "--base-url", "http://h/v1", "--model", "m", "--no-key"],
    input: "",
  });
  const hosted = loginCheck(["lsp"], { kind: "openai", baseUrl: "http://h/v1", model: "m", apiKey: KEY });
  assert.ok(hosted && !hosted.args.join(" ").includes(KEY) && hosted.input === `${KEY}\n`);
  assert.equal(loginCheck(["serve"], { kind: "gemini", apiKey: KEY }), undefined);
  // Behind a gateway the key is checked against the gateway it will be used with.
  assert.deepEqual(loginCheck(["lsp"], { kind: "gemini", apiKey: KEY }, { GOOGLE_GEMINI_BASE_URL: "http://gw:1" }), {
    args: ["login", "--check-only", "--gemini", "--base-url", "http://gw:1"],
    input: `${KEY}\n`,
  });
});
