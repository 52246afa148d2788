// The request view: the fold plus the system-prompt overlay, which is
// re-derived per run and never persisted.

import type { Message } from '../model/messages';
import type { SessionLog } from '../log/session-log';
import { overlaySlotOf } from '../invariant/overlay';

/**
 * `messages` with `overlay` applied: concatenated onto a leading system
 * message (`content + "\n\n" + overlay`), or prepended as a system message of
 * its own when the list does not lead with one. `undefined`/`null`: unchanged.
 */
export function applyOverlay(messages: readonly Message[], overlay: string | null | undefined): Message[] {
  if (overlay === undefined || overlay === null) return messages as Message[];
  const head = messages[0];
  if (head?.role === 'system') {
    return [{ ...head, content: withOverlay(head.content, overlay) }, ...messages.slice(1)];
  }
  return [{ role: 'system', content: overlay, createdAt: head?.createdAt ?? new Date() }, ...messages];
}

function withOverlay(content: Message['content'], overlay: string): Message['content'] {
  if (typeof content === 'string') return `${content}\n\n${overlay}`;
  if (content === null) return overlay;
  return [...content, { type: 'text', text: `\n\n${overlay}` }];
}

/** The log's fold as the model is sent it: with the overlay, which appends no event. */
export class SessionView {
  /** The log whose fold the view shows. The view never appends to it; the compaction operations append through it. */
  readonly log: SessionLog;
  #overlay: string | null;

  /**
   * A view of `log`'s fold with `overlay` (none by default). The overlay lives
   * only here and is never appended, because it is re-derived per run
   * (docs/behaviour.md §7.1).
   */
  constructor(log: SessionLog, overlay: string | null = null) {
    this.log = log;
    this.#overlay = overlay;
  }

  /** The current overlay text, or `null` for none. */
  get overlay(): string | null {
    return this.#overlay;
  }

  /** Replaces the overlay (never compounds); `null` gives back the plain fold. */
  setOverlay(overlay: string | null): void {
    this.#overlay = overlay;
  }

  /**
   * What the model is sent: `applyOverlay(log.deriveMessages(), overlay)`, a
   * fresh array on every read. `check(log, view.messages)` passes for any
   * balanced log and any overlay, by the overlay exemption (docs/behaviour.md
   * §3.1, §7.1).
   */
  get messages(): Message[] {
    return applyOverlay(this.log.deriveMessages(), this.#overlay);
  }

  /**
   * 1 when the overlay prepended a message of its own, so view indices are
   * shifted by one: the overlay slot the check finds (overlay.ts decides it),
   * since a view with an overlay always leads with a system message.
   */
  get offset(): number {
    if (this.#overlay === null) return 0;
    return overlaySlotOf(true, this.log._foldMessages()[0]?.role === 'system');
  }
}
