// The panel's MCP forms (elicitation): drawn once per form (typing is never redrawn away), read on Submit.

import type { FormField, PendingForm } from "../elicitation";
import { escapeHtml } from "../html";

const INPUT_TYPES: Record<string, string> = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" };

function fieldHtml(formId: string, f: FormField): string {
  const id = `form-${escapeHtml(formId)}-${escapeHtml(f.name)}`;
  const label = `${escapeHtml(f.title)}${f.required ? ' <span class="required" title="Required">*</span>' : ""}`;
  const help = f.description ? `<div class="field-help">${escapeHtml(f.description)}</div>` : "";
  const attrs = `id="${id}" data-field="${escapeHtml(f.name)}" data-kind="${f.kind}"${f.required ? " required" : ""}`;
  const given = f.default;
  let control: string;
  switch (f.kind) {
    case "boolean":
      return (
        `<div class="field boolean"><label><input type="checkbox" ${attrs}${given === true ? " checked" : ""}> ${label}</label>${help}</div>`
      );
    case "choice":
      control =
        `<select ${attrs}>${f.required ? "" : '<option value=""></option>'}` +
        (f.options ?? [])
          .map((o) => `<option value="${escapeHtml(o.value)}"${o.value === given ? " selected" : ""}>${escapeHtml(o.label)}</option>`)
          .join("") +
        "</select>";
      break;
    case "choices": {
      const chosen = Array.isArray(given) ? given : [];
      control =
        `<div class="choices" ${attrs}>` +
        (f.options ?? [])
          .map(
            (o) =>
              `<label><input type="checkbox" value="${escapeHtml(o.value)}"${chosen.includes(o.value) ? " checked" : ""}> ${escapeHtml(o.label)}</label>`,
          )
          .join("") +
        "</div>";
      break;
    }
    case "number":
    case "integer": {
      const bounds = `${f.minimum !== undefined ? ` min="${f.minimum}"` : ""}${f.maximum !== undefined ? ` max="${f.maximum}"` : ""}`;
      const step = f.kind === "integer" ? ' step="1"' : ' step="any"';
      const value = typeof given === "number" ? ` value="${given}"` : "";
      control = `<input type="number" ${attrs}${bounds}${step}${value}>`;
      break;
    }
    default: {
      const type = INPUT_TYPES[f.format ?? ""] ?? "text";
      const value = typeof given === "string" ? ` value="${escapeHtml(given)}"` : "";
      control = `<input type="${type}" ${attrs}${value}>`;
    }
  }
  return `<div class="field"><label for="${id}">${label}</label>${control}${help}</div>`;
}

/** One form's card: who asks, what, the fields, and Submit / Decline / Cancel. */
export function renderForm(form: PendingForm): string {
  const id = escapeHtml(form.requestId);
  return (
    `<form class="mcp-form" data-form="${id}" novalidate><div class="form-title">MCP server <b>${escapeHtml(form.server)}</b> asks for input</div>` +
    `<div class="form-message">${escapeHtml(form.message)}</div>` +
    form.fields.map((f) => fieldHtml(form.requestId, f)).join("") +
    `<div class="form-problem" role="alert" hidden></div>` +
    `<div class="perm-buttons"><button type="submit" class="perm allow_once">Submit</button>` +
    `<button type="button" class="perm reject_once" data-form-action="decline">Decline</button>` +
    `<button type="button" class="secondary" data-form-action="cancel">Cancel</button></div></form>`
  );
}

/** The values typed into a form, by field name (empty ones left out); a problem when a required one is empty. */
export function readForm(form: HTMLFormElement): { content: Record<string, unknown>; missing?: string } {
  const content: Record<string, unknown> = {};
  let missing: string | undefined;
  for (const node of Array.from(form.querySelectorAll<HTMLElement>("[data-field]"))) {
    const name = node.dataset.field ?? "";
    const kind = node.dataset.kind;
    let value: unknown;
    if (kind === "boolean") {
      value = (node as HTMLInputElement).checked;
    } else if (kind === "choices") {
      value = Array.from(node.querySelectorAll<HTMLInputElement>("input:checked")).map((i) => i.value);
    } else {
      const text = (node as HTMLInputElement | HTMLSelectElement).value.trim();
      value = text === "" ? undefined : kind === "number" || kind === "integer" ? Number(text) : text;
    }
    const empty = value === undefined || (Array.isArray(value) && value.length === 0);
    if (empty && node.hasAttribute("required") && missing === undefined) {
      missing = form.querySelector(`label[for="${node.id}"]`)?.textContent?.replace("*", "").trim() ?? name;
    }
    if (!empty) {
      content[name] = value;
    }
  }
  return { content, missing };
}

/** Draws the pending forms into `box`, only when the set of forms changed (so typing survives other updates). */
export function drawForms(box: HTMLElement, forms: PendingForm[]): void {
  const sig = forms.map((f) => f.requestId).join(",");
  if (box.dataset.sig !== sig) {
    box.dataset.sig = sig;
    box.innerHTML = forms.map(renderForm).join("");
  }
}

/** Submit, Decline and Cancel of the forms in `box` become `answer` calls. */
export function bindForms(box: HTMLElement, answer: (requestId: string, action: string, content?: Record<string, unknown>) => void): void {
  box.addEventListener("submit", (event) => {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const { content, missing } = readForm(form);
    const problem = form.querySelector<HTMLElement>(".form-problem");
    if (missing !== undefined && problem !== null) {
      problem.textContent = `${missing} is required.`;
      problem.hidden = false;
      return;
    }
    answer(form.dataset.form ?? "", "accept", content);
  });
  box.addEventListener("click", (event) => {
    const button = (event.target as HTMLElement).closest<HTMLElement>("[data-form-action]");
    const form = button?.closest<HTMLFormElement>("form[data-form]");
    if (button && form) {
      event.preventDefault();
      answer(form.dataset.form ?? "", button.dataset.formAction ?? "cancel");
    }
  });
}
