// The @ picker: typing @word asks the extension for rows (mentionQuery); picking one turns it into a chip
// (mentionPick). A listbox the composer's textarea points at with aria-activedescendant.

import type { MentionCandidate } from "../mentions";
import type { FromWebview } from "../messages";
import { renderMentionPicker } from "./render";

/** Where the picker's questions and picks go, and how it says the draft changed. */
export interface PickerHost {
  post(message: FromWebview): void;
  save(): void;
}

export class MentionPicker {
  private readonly list = document.getElementById("picker") as HTMLUListElement;
  private mention: { start: number; query: string; seq: number; items: MentionCandidate[]; active: number; searching: boolean } | undefined;
  private seq = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly host: PickerHost,
  ) {
    this.list.addEventListener("mousedown", (event) => {
      const row = (event.target as HTMLElement).closest<HTMLElement>("[data-mention]");
      if (row !== null) {
        event.preventDefault(); // keep the focus in the box
        this.pick(Number(row.dataset.mention));
      }
    });
    input.addEventListener("blur", () => {
      setTimeout(() => {
        if (document.activeElement !== input) {
          this.mention = undefined;
          this.draw();
        }
      }, 150);
    });
  }

  /** The @ button: an "@" at the cursor, which opens the picker. */
  start(): void {
    const input = this.input;
    const at = input.selectionStart ?? input.value.length;
    const before = input.value.slice(0, at);
    input.setRangeText(before === "" || /\s$/.test(before) ? "@" : " @", at, input.selectionEnd ?? at, "end");
    input.focus();
    this.update();
  }

  results(seq: number, items: MentionCandidate[]): void {
    if (this.mention !== undefined && seq === this.mention.seq) {
      this.mention = { ...this.mention, items, active: 0, searching: false };
      this.draw();
    }
  }

  /** The "@query" the cursor stands at the end of, if any. */
  private atCursor(): { start: number; query: string } | undefined {
    const before = this.input.value.slice(0, this.input.selectionStart ?? this.input.value.length);
    const match = /(^|\s)@([^\s@]*)$/.exec(before);
    return match ? { start: before.length - match[2].length - 1, query: match[2] } : undefined;
  }

  private draw(): void {
    const { input, list: picker, mention } = this;
    if (mention === undefined) {
      picker.hidden = true;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
      return;
    }
    picker.innerHTML = renderMentionPicker(mention.items, mention.active, mention.searching);
    picker.hidden = false;
    input.setAttribute("aria-expanded", "true");
    if (mention.items.length > 0) {
      input.setAttribute("aria-activedescendant", `mention-${mention.active}`);
      picker.querySelector(".mention.active")?.scrollIntoView({ block: "nearest" });
    }
  }

  update(): void {
    const at = this.atCursor();
    if (at === undefined) {
      this.mention = undefined;
      this.draw();
      return;
    }
    this.seq += 1;
    this.mention = { ...at, seq: this.seq, items: this.mention?.items ?? [], active: 0, searching: true };
    this.draw();
    const seq = this.seq;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.host.post({ type: "mentionQuery", query: at.query, seq }), 80);
  }

  private pick(index: number): void {
    const { input, mention: current } = this;
    const candidate = current?.items[index];
    if (current === undefined || candidate === undefined) {
      return;
    }
    const end = input.selectionStart ?? input.value.length;
    if (candidate.insert !== undefined) {
      // A resource template: its fixed part goes in the box and the picker asks again as the rest is typed.
      input.setRangeText(`@${candidate.insert}`, current.start, end, "end");
      this.update();
      return;
    }
    // The "@query" text goes; the chip stands for it.
    input.value = input.value.slice(0, current.start) + input.value.slice(end);
    input.setSelectionRange(current.start, current.start);
    this.mention = undefined;
    this.draw();
    this.host.save();
    this.host.post({ type: "mentionPick", candidate });
    input.focus();
  }

  /** Keys while the picker is open: arrows move, Enter/Tab pick, Escape closes; true when the key was its. */
  key(event: KeyboardEvent): boolean {
    const mention = this.mention;
    if (mention === undefined || event.isComposing) {
      return false;
    }
    const count = mention.items.length;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (count > 0) {
        event.preventDefault();
        mention.active = (mention.active + (event.key === "ArrowDown" ? 1 : count - 1)) % count;
        this.draw();
      }
      return true;
    }
    if ((event.key === "Enter" || event.key === "Tab") && !event.shiftKey && count > 0) {
      event.preventDefault();
      this.pick(mention.active);
      return true;
    }
    if (event.key === "Escape") {
      event.preventDefault();
      this.mention = undefined;
      this.draw();
      return true;
    }
    return false;
  }

}
