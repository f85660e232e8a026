// The rewind's part of the chat state (ChatState.rewind): a leaf of types that the state, the actions and the page share.

/** Rewind: back to before the message, which goes into the box if that is empty (a draft is kept). Edit: the same,
 * and the message replaces what is in the box. */
export type RewindAction = "rewind" | "edit";

/** What agent/rewind's dry run says the files will go through. */
export interface FileChanges {
  restore: string[];
  delete: string[];
  conflicts: string[];
}

/** A rewind asked for and not yet confirmed: what it will do, shown to the user first. */
export interface RewindPreview extends FileChanges {
  itemId: string;
  action: RewindAction;
  /** The message's index among the session's user messages (the server's numbering). */
  index: number;
  text: string;
}

/** The panel's part of the chat state for these actions (ChatState.rewind). */
export interface RewindView {
  preview?: RewindPreview;
  /** The last rewind: what it did, undoable until the next prompt. */
  done?: FileChanges & { text: string; filesAvailable: boolean };
  /** Text for the composer (Rewind, Edit, Fork): the page puts it in the box once per seq; `ifEmpty`: only
   * when the box is empty. */
  composer?: { text: string; seq: number; ifEmpty?: boolean };
}
