// Sign in from VS Code: the credentials live in VS Code's SecretStorage and reach the server this extension starts
// through that child process's environment only — never settings, never the output channel. The server keeps them
// from every process it starts in turn (agent_lsp/child_env.py): no shell command or MCP server sees the key. No vscode import here,
// so the logic is tested with plain node (src/test/signIn.test.ts); extension.ts wires it to the UI.

/** The SecretStorage key holding the JSON of the current credentials. */
export const SECRET_KEY = "agentLsp.credentials";

export type Credentials =
  | { kind: "gemini"; apiKey: string }
  | { kind: "openai"; baseUrl: string; model: string; apiKey?: string };

/** VS Code's SecretStorage, as far as this module needs it. */
export interface Secrets {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
}

/** What the Sign In command asks the user; each answer is undefined when the user dismissed the question. */
export interface SignInPrompts {
  kind(): PromiseLike<"gemini" | "openai" | undefined>;
  /** A key, typed hidden; "" is an answer (no key) only when ``optional``. */
  apiKey(kind: "gemini" | "openai", optional: boolean): PromiseLike<string | undefined>;
  baseUrl(): PromiseLike<string | undefined>;
  model(): PromiseLike<string | undefined>;
}

/** Checks credentials (with `agent-lsp login --check-only`); resolves to undefined when they work, else why not. */
export type CredentialCheck = (credentials: Credentials) => Promise<string | undefined>;

export const OPENAI_DEFAULT_URL = "https://api.openai.com/v1";

/**
 * Every variable that holds a key or picks a provider: the sign-in replaces them in the server's environment, so a
 * stray one cannot bend it into another provider or another key. What only says where to reach a provider — a
 * company gateway's GOOGLE_GEMINI_BASE_URL, GOOGLE_VERTEX_BASE_URL, the Vertex project and location — is not a
 * credential and stays: a sign-in behind a gateway goes on using the gateway (docs/auth.md).
 */
export const CREDENTIAL_VARIABLES = [
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "GOOGLE_GENAI_USE_VERTEXAI",
  "OPENAI_BASE_URL",
  "OPENAI_API_KEY",
  "OPENAI_MODEL",
] as const;

/** The Gemini endpoint a Gemini key will be used with: the gateway the environment names, else Google's. */
export function geminiEndpoint(env: NodeJS.ProcessEnv): string | undefined {
  const url = env.GOOGLE_GEMINI_BASE_URL?.trim();
  return url ? url : undefined;
}

/** The stored credentials, or undefined when there are none or the stored text is not a sign-in. */
export function parseCredentials(text: string | undefined): Credentials | undefined {
  if (!text) {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) {
    return undefined;
  }
  const v = value as Record<string, unknown>;
  const str = (x: unknown): string | undefined => (typeof x === "string" && x.trim() ? x.trim() : undefined);
  if (v.kind === "gemini" && str(v.apiKey)) {
    return { kind: "gemini", apiKey: str(v.apiKey) as string };
  }
  if (v.kind === "openai" && str(v.baseUrl) && str(v.model)) {
    const apiKey = str(v.apiKey);
    return { kind: "openai", baseUrl: str(v.baseUrl) as string, model: str(v.model) as string, ...(apiKey ? { apiKey } : {}) };
  }
  return undefined;
}

export async function loadCredentials(secrets: Secrets): Promise<Credentials | undefined> {
  return parseCredentials(await secrets.get(SECRET_KEY));
}

/** The server's environment: ``base`` as it is without a sign-in; with one, its variables in place of the base's. */
export function serverEnvironment(base: NodeJS.ProcessEnv, credentials: Credentials | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  if (credentials === undefined) {
    return env;
  }
  for (const name of CREDENTIAL_VARIABLES) {
    delete env[name];
  }
  if (credentials.kind === "gemini") {
    env.GEMINI_API_KEY = credentials.apiKey;
  } else {
    env.OPENAI_BASE_URL = credentials.baseUrl;
    env.OPENAI_MODEL = credentials.model;
    if (credentials.apiKey) {
      env.OPENAI_API_KEY = credentials.apiKey;
    }
  }
  return env;
}

/**
 * How to check ``credentials`` with the server's own `login --check-only` (one model-list request through the real
 * client): the arguments that start the server with `lsp` replaced by the login command, and the key for its stdin.
 * Undefined when the server command has no `lsp` argument to replace (a custom command we cannot rewrite).
 */
export function loginCheck(
  serverArgs: string[],
  credentials: Credentials,
  env: NodeJS.ProcessEnv = {},
): { args: string[]; input: string } | undefined {
  const at = serverArgs.lastIndexOf("lsp");
  if (at < 0) {
    return undefined;
  }
  const args = [...serverArgs.slice(0, at), "login", "--check-only"];
  if (credentials.kind === "gemini") {
    // Checked against the endpoint it will be used with: the gateway the server will be started with, if any.
    const gateway = geminiEndpoint(env);
    return { args: [...args, "--gemini", ...(gateway ? ["--base-url", gateway] : [])], input: `${credentials.apiKey}\n` };
  }
  args.push("--openai", "--base-url", credentials.baseUrl, "--model", credentials.model);
  if (!credentials.apiKey) {
    args.push("--no-key");
  }
  return { args, input: credentials.apiKey ? `${credentials.apiKey}\n` : "" };
}

/** Asks for credentials; undefined when the user dismissed a question. */
export async function askCredentials(prompts: SignInPrompts): Promise<Credentials | undefined> {
  const kind = await prompts.kind();
  if (kind === undefined) {
    return undefined;
  }
  if (kind === "gemini") {
    const apiKey = (await prompts.apiKey("gemini", false))?.trim();
    return apiKey ? { kind, apiKey } : undefined;
  }
  const baseUrl = (await prompts.baseUrl())?.trim().replace(/\/+$/, "");
  if (!baseUrl) {
    return undefined;
  }
  const model = (await prompts.model())?.trim();
  if (!model) {
    return undefined;
  }
  const apiKey = await prompts.apiKey("openai", true);
  if (apiKey === undefined) {
    return undefined;
  }
  return { kind, baseUrl, model, ...(apiKey.trim() ? { apiKey: apiKey.trim() } : {}) };
}

/** The whole Sign In: ask, check, keep. The message is for the user and never contains the key. */
export async function signIn(
  secrets: Secrets,
  prompts: SignInPrompts,
  check: CredentialCheck,
  env: NodeJS.ProcessEnv = {},
): Promise<{ ok: boolean; message: string }> {
  const credentials = await askCredentials(prompts);
  if (credentials === undefined) {
    return { ok: false, message: "" };
  }
  const problem = await check(credentials);
  if (problem !== undefined) {
    return { ok: false, message: `Sign-in failed: ${scrub(problem, credentials)}` };
  }
  await secrets.store(SECRET_KEY, JSON.stringify(credentials));
  return { ok: true, message: `Signed in: ${describe(credentials, env)}. The agent server restarts with it.` };
}

/** Deletes the stored credentials; false when there were none. */
export async function signOut(secrets: Secrets): Promise<boolean> {
  const had = (await loadCredentials(secrets)) !== undefined;
  await secrets.delete(SECRET_KEY);
  return had;
}

export function describe(credentials: Credentials, env: NodeJS.ProcessEnv = {}): string {
  const gateway = geminiEndpoint(env);
  return credentials.kind === "gemini"
    ? `Gemini API key${gateway ? ` through ${gateway}` : ""}`
    : `OpenAI-compatible endpoint ${credentials.baseUrl}, model ${credentials.model}`;
}

function scrub(text: string, credentials: Credentials): string {
  const key = credentials.apiKey;
  return key ? text.split(key).join("***") : text;
}
