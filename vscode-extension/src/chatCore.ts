// What every part of the chat shares: the state and its listeners, the connection to the server, the host.

import type { Connection, Host } from "./host";
import { FormBroker } from "./elicitation";
import type { PermissionBroker } from "./permissions";
import * as S from "./state";

export interface SessionDefaults {
  cwd?: string;
  approvalMode?: string;
  model?: string;
}

export class ChatCore {
  state: S.ChatState = S.emptyState();
  connection: Connection | undefined;
  private readonly listeners: ((state: S.ChatState) => void)[] = [];
  /** MCP servers' forms waiting in the panel (agent/elicit). */
  readonly forms = new FormBroker();

  constructor(
    readonly host: Host,
    readonly broker: PermissionBroker,
    readonly defaults: () => SessionDefaults,
  ) {}

  onChange(listener: (state: S.ChatState) => void): void {
    this.listeners.push(listener);
  }

  set(next: S.ChatState): void {
    this.state = next;
    for (const listener of this.listeners) {
      listener(next);
    }
  }

  /** Says what went wrong in the transcript. */
  fail(err: unknown): void {
    this.set(S.addNotice(this.state, "error", errorText(err)));
  }

  /** A plain request to the server; throws when no server runs. */
  request<R>(method: string, params: unknown): Promise<R> {
    return this.conn().sendRequest<R>(method, params);
  }

  conn(): Connection {
    if (this.connection === undefined) {
      throw new Error(this.state.serverMessage ?? "The agent server is not running.");
    }
    return this.connection;
  }

  /** Whether the running server answers this agent/* request (its `experimental.agent.requests`). */
  serves(method: string): boolean {
    return this.connection?.serverRequests?.includes(method) ?? false;
  }

  /** Open questions and forms go away: the turn or the server they belonged to has ended. */
  withdrawQuestions(): void {
    this.broker.cancelAll();
    this.forms.cancelAll();
  }
}

export function errorText(err: unknown): string {
  if (err instanceof Error) {
    return err.message;
  }
  if (typeof err === "object" && err !== null && "message" in err) {
    return String((err as { message: unknown }).message);
  }
  return String(err);
}
