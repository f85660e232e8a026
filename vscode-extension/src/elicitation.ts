// agent/elicit: an MCP server's form (elicitation), as the server describes it, and the answer the panel gives.

/** One field of the form; the server derived it from the MCP server's requested JSON schema. */
export interface FormField {
  name: string;
  kind: "string" | "number" | "integer" | "boolean" | "choice" | "choices";
  title: string;
  required: boolean;
  description?: string;
  default?: unknown;
  options?: { value: string; label: string }[];
  format?: string;
  minimum?: number;
  maximum?: number;
}

export interface ElicitParams {
  sessionId: string;
  server: string;
  message: string;
  fields: FormField[];
}

export interface ElicitResult {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

/** A form waiting in the panel. */
export interface PendingForm {
  requestId: string;
  server: string;
  message: string;
  fields: FormField[];
}

/** The notification's words when the panel is hidden. */
export function formNotice(params: ElicitParams): string {
  return `MCP server '${params.server}' asks for input: ${params.message}`;
}

/** A form's answer from the page, checked for shape (the server checks each value against its field). */
export function parseFormAnswer(msg: Record<string, unknown>): ElicitResult | undefined {
  const action = msg.action;
  if (action !== "accept" && action !== "decline" && action !== "cancel") {
    return undefined;
  }
  const content = msg.content;
  if (action === "accept") {
    return typeof content === "object" && content !== null && !Array.isArray(content)
      ? { action, content: content as Record<string, unknown> }
      : undefined;
  }
  return { action };
}

/** Forms waiting for an answer: one answer each, from the panel (or a cancellation). */
export class FormBroker {
  private readonly pending = new Map<string, (result: ElicitResult) => void>();
  private seq = 0;

  ask(): { requestId: string; answer: Promise<ElicitResult> } {
    this.seq += 1;
    const requestId = `form-${this.seq}`;
    const answer = new Promise<ElicitResult>((resolve) => this.pending.set(requestId, resolve));
    return { requestId, answer };
  }

  /** False when the form was already answered (or never asked). */
  answer(requestId: string, result: ElicitResult): boolean {
    const resolve = this.pending.get(requestId);
    this.pending.delete(requestId);
    resolve?.(result);
    return resolve !== undefined;
  }

  /** The turn was stopped or the server went away: every open form is cancelled. */
  cancelAll(): void {
    for (const id of [...this.pending.keys()]) {
      this.answer(id, { action: "cancel" });
    }
  }
}
