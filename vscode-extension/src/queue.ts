// The queue of messages sent while a turn runs: pure steps on the chat state (the controller decides when).

import type { Draft } from "./composer";
import { bump, nextId, type ChatState, type QueuedPrompt } from "./state";

/** The message goes to the end of the queue (or the front, for "send now"). */
export function enqueue(state: ChatState, draft: Draft, front = false): { state: ChatState; id: string } {
  const item: QueuedPrompt = { id: nextId("queued"), draft };
  const queue = front ? [item, ...state.queue] : [...state.queue, item];
  return { state: bump(state, { queue }), id: item.id };
}

export function removeQueued(state: ChatState, id: string): ChatState {
  return bump(state, { queue: state.queue.filter((q) => q.id !== id) });
}

/** Moves one queued message to the front (what "send now" sends once the turn has stopped). */
export function moveToFront(state: ChatState, id: string): ChatState {
  const item = state.queue.find((q) => q.id === id);
  if (item === undefined) {
    return state;
  }
  return bump(state, { queue: [item, ...state.queue.filter((q) => q.id !== id)] });
}

/** Takes the first queued message off the queue. */
export function takeNext(state: ChatState): { state: ChatState; next: QueuedPrompt | undefined } {
  const [next, ...rest] = state.queue;
  return next === undefined ? { state, next } : { state: bump(state, { queue: rest }), next };
}

export function setQueuePaused(state: ChatState, paused: boolean): ChatState {
  return state.queuePaused === paused ? state : bump(state, { queuePaused: paused });
}

/** A turn that ends like this sends the next queued message by itself; a stopped or failed one pauses the queue. */
export function continuesQueue(stopReason: string | undefined): boolean {
  return stopReason !== undefined && stopReason !== "cancelled" && stopReason !== "error";
}
