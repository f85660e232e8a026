// The auto-approve switches behind one control in the composer: the control says what is on ("Auto-approve: Edit,
// Shell"); it opens a list with one switch per kind (a click moves it off → this session → this workspace).

import { AUTO_KINDS, type AutoApproveState, KIND_LABELS, KIND_WHAT, SCOPE_WORDS, nextScope, scopeOf } from "../autoApprove";
import { escapeHtml } from "../html";
import { codicon } from "./toolLine";

/** What the control says: the kinds switched on, or "off"; the reason when the switches cannot be used here. */
export function autoSummary(state: AutoApproveState | undefined): { text: string; title: string } {
  if (state === undefined || !state.available) {
    const why = state?.reason ?? "not available until the chat starts";
    return { text: "Auto-approve: off", title: `Auto-approve is off: ${why}` };
  }
  const on = AUTO_KINDS.filter((k) => scopeOf(state, k) !== "off");
  const text = on.length === 0 ? "Auto-approve: off" : `Auto-approve: ${on.map((k) => KIND_LABELS[k]).join(", ")}`;
  const detail = on.map((k) => `${KIND_LABELS[k]}: ${SCOPE_WORDS[scopeOf(state, k)]}`).join("; ");
  const plan = state.planMode ? " Plan mode: read-only whatever is on." : "";
  return { text, title: `${on.length === 0 ? "Every tool that changes something asks first." : detail}${plan} Click to change.` };
}

/** The list the control opens: one switch per kind with its scope in words; disabled with the reason when refused. */
export function renderAutoApprove(state: AutoApproveState | undefined): string {
  if (state === undefined) {
    return `<div class="auto-note">Auto-approve is available once the chat has started.</div>`;
  }
  const disabled = state.available ? "" : " disabled";
  const rows = AUTO_KINDS.map((kind) => {
    const scope = scopeOf(state, kind);
    const title = state.available
      ? `Auto-approve ${KIND_WHAT[kind]}: ${SCOPE_WORDS[scope]}. Click for ${SCOPE_WORDS[nextScope(scope)]}.`
      : `Auto-approve is off: ${state.reason ?? "not available"}`;
    const aria = `Auto-approve ${KIND_LABELS[kind]}: ${scope === "off" ? "off" : SCOPE_WORDS[scope]}`;
    const mark = scope === "off" ? "" : scope === "session" ? " ✓" : " ✓✓";
    return (
      `<button class="auto-kind scope-${scope}" data-auto="${kind}" data-scope="${nextScope(scope)}" aria-pressed="${scope !== "off"}" ` +
      `aria-label="${escapeHtml(aria)}" title="${escapeHtml(title)}"${disabled}><span class="auto-label">${KIND_LABELS[kind]}${mark}</span>` +
      `<span class="auto-scope">${scope === "off" ? "asks" : SCOPE_WORDS[scope]}</span></button>`
    );
  }).join("");
  const note = !state.available
    ? `<div class="auto-note">${codicon("info")}${escapeHtml(`Off: ${state.reason ?? "not available"}`)}</div>`
    : state.planMode
      ? `<div class="auto-note">${codicon("info")}Plan mode: read-only whatever is on</div>`
      : `<div class="auto-note">A click moves a switch: asks → this session (✓) → this workspace (✓✓).</div>`;
  return `<div class="auto-approve" role="group" aria-label="Auto-approve (✓ this session, ✓✓ this workspace)">${rows}</div>${note}`;
}
