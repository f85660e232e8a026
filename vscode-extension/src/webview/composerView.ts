// The composer: the box, its chips (attached context, images), the @ picker, slash-command hints, and Send / Queue /
// Send now. The page (main.ts) gives it the state and says where messages go.

import type { Attachment } from "../composer";
import { imageAttachment, imageProblem, imagesRefused } from "../images";
import type { FromWebview } from "../messages";
import type { ChatState } from "../state";
import { MentionPicker } from "./mentionPicker";
import { renderChips, renderCommandHints } from "./render";

export interface ComposerHost {
  post(message: FromWebview): void;
  state(): ChatState | undefined;
  /** Something the page keeps across reloads changed (draft, chips). */
  save(): void;
}

const el = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

export class Composer {
  readonly input = el<HTMLTextAreaElement>("input");
  attachments: Attachment[];
  readonly picker: MentionPicker;

  constructor(
    private readonly host: ComposerHost,
    draft: string,
    attachments: Attachment[],
  ) {
    this.input.value = draft;
    this.attachments = attachments;
    this.picker = new MentionPicker(this.input, host);
    this.showChips();
    this.bind();
  }

  showChips(): void {
    el("chips").innerHTML = renderChips(this.attachments, true);
    el("chips").hidden = this.attachments.length === 0;
  }

  showHints(): void {
    el("hints").innerHTML = renderCommandHints(this.input.value, this.host.state()?.commands ?? []);
  }

  /** A short message above the box (a refused image, a model without image input); empty hides it. */
  note(text: string): void {
    const box = el("composer-note");
    box.textContent = text;
    box.hidden = text === "";
  }

  /** Text the extension puts in the box (Edit, Fork, a queued message taken back). */
  setText(text: string, attachments?: Attachment[]): void {
    this.input.value = text;
    if (attachments !== undefined) {
      this.attachments = attachments;
      this.showChips();
    }
    this.input.focus();
    this.input.setSelectionRange(text.length, text.length);
    this.changed();
  }

  attach(added: Attachment): void {
    if (!this.attachments.some((a) => a.kind === added.kind && JSON.stringify(a.block) === JSON.stringify(added.block))) {
      this.attachments = [...this.attachments, added];
      this.showChips();
      this.changed();
    }
  }

  removeChip(id: string): void {
    this.attachments = this.attachments.filter((a) => a.id !== id);
    this.note("");
    this.showChips();
    this.changed();
    this.input.focus();
  }

  isEmpty(): boolean {
    return this.input.value.trim() === "" && this.attachments.length === 0;
  }

  private changed(): void {
    this.host.save();
    this.showHints();
    el("composer").classList.toggle("has-text", !this.isEmpty());
  }

  /** Enter: sends the draft, or queues it while a turn runs; `now` (Ctrl+Enter, "Send now") goes at once. */
  send(now = false): void {
    const state = this.host.state();
    const text = this.input.value.trim();
    if ((!text && this.attachments.length === 0) || state?.serverStatus !== "running") {
      return;
    }
    if (this.attachments.some((a) => a.kind === "image") && state.imageInput === false) {
      this.note(imagesRefused(state.currentModel));
      return;
    }
    this.note("");
    const attachments = this.attachments;
    this.host.post(now && state.busy ? { type: "sendNow", text, attachments } : { type: "send", text, attachments });
    this.input.value = "";
    this.attachments = [];
    this.showChips();
    this.changed();
  }

  /** Pasted, dropped or picked image files become chips with a thumbnail. */
  addImages(files: File[]): void {
    for (const file of files) {
      const problem = imageProblem(file.name, file.type, file.size);
      if (problem !== undefined) {
        this.note(problem);
        continue;
      }
      const reader = new FileReader();
      reader.onload = () => {
        const data = String(reader.result).replace(/^data:[^,]*,/, "");
        // Every image given is its own chip (two files may hold the same picture).
        this.attachments = [...this.attachments, imageAttachment(file.name, file.type, data, file.size)];
        this.showChips();
        this.changed();
      };
      reader.readAsDataURL(file);
    }
  }

  private bind(): void {
    const { input } = this;
    const box = el("composer");
    input.addEventListener("paste", (event) => {
      const files = Array.from(event.clipboardData?.files ?? []);
      if (files.length > 0) {
        event.preventDefault(); // an image, not its name as text
        this.addImages(files);
      }
    });
    box.addEventListener("dragover", (event) => {
      if (event.dataTransfer?.types.includes("Files")) {
        event.preventDefault();
        box.classList.add("dropping");
      }
    });
    box.addEventListener("dragleave", () => box.classList.remove("dropping"));
    box.addEventListener("drop", (event) => {
      box.classList.remove("dropping");
      const files = Array.from(event.dataTransfer?.files ?? []);
      if (files.length > 0) {
        event.preventDefault();
        this.addImages(files);
      }
    });
    const images = el<HTMLInputElement>("image-file");
    images.addEventListener("change", () => {
      this.addImages(Array.from(images.files ?? []));
      images.value = "";
    });
    el("attach-image").addEventListener("click", () => images.click());
    el("mention").addEventListener("click", () => this.picker.start());
    input.addEventListener("input", () => {
      this.changed();
      this.picker.update();
    });
    input.addEventListener("keydown", (event) => {
      if (this.picker.key(event)) {
        return;
      }
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.send(event.ctrlKey || event.metaKey);
      }
    });
    el("send").addEventListener("click", () => this.send());
    el("send-now").addEventListener("click", () => this.send(true));
  }
}
