import { withoutSpaces } from '../../core/screen-text.js';
import type { ScreenVocabulary } from '../../core/screen-vocabulary.js';
import { RETRY_SETTLE_MS, type ScreenSnapshot, type TerminalScreen } from './screen.js';
import type { InjectResult, TerminalPort } from './terminal-port.js';

/** How long a typed message may sit in the agent's input box after its Enter before Enter is typed again. */
export const SUBMIT_SEEN_MS = 2_000;
/**
 * A message not yet shown in the box SUBMIT_SEEN_MS after its Enter is looked for this much longer (a program
 * busy starting shows keys seconds late), unless the agent is at work by then or shows the message elsewhere.
 */
export const SHOWN_LATE_MS = 6_000;
/** Reads of the screen for that Enter, each typed only if the program wrote nothing since the read. */
const ENTER_AGAIN_TRIES = 3;
/** How much of a message's first line, shown outside the box, means it was taken (short: a frame may cut it). */
const SHOWN_CHARS = 12;

/** What a terminal session lends a look at its screen and an Enter typed again onto what it showed. */
export interface ScreenWatch {
  screen: TerminalScreen;
  pty: TerminalPort;
  /** The caught-up screen shows what `check` looks for, now or at a settle within `maxMs`; whether it did. */
  untilScreen(check: (screen: ScreenSnapshot) => boolean, maxMs: number): Promise<boolean>;
  stopped(): boolean;
}

/** What a terminal session lends the submission of one message. */
export interface SubmitContext extends ScreenWatch {
  /** The agent's vocabulary: its box still holds the message; it sits idle at its box. */
  holdsUnsent: NonNullable<ScreenVocabulary['holdsUnsent']>;
  isIdle?: ScreenVocabulary['isIdle'];
  /** Calls `watch` at each settle until the returned function is called. */
  watchSettles(watch: () => void): () => void;
}

/**
 * Types a message and its Enter (`typed`), then makes sure the agent took it. A TUI on a busy machine may take
 * the Enter as a new line of its paste, or miss it: the message then sits in its input box, unsent. Once the
 * box was seen holding it (at any settle from the moment it is typed, or up to SHOWN_LATE_MS later where the
 * keys show late), the message is taken when the box no longer does; if it still does SUBMIT_SEEN_MS later,
 * Enter is typed once more (an Enter on an empty box does nothing), never while a dialog of the agent's is
 * shown (holdsUnsent says no then). A message never seen in the box (it went through between two settles, or
 * its keys were lost whole) gets nothing more: typing it again could only duplicate keys still unread.
 */
export async function submitMessage(
  ctx: SubmitContext,
  typed: () => Promise<InjectResult>,
  text: string,
  enter: string,
): Promise<void> {
  const box = seenHolding((screen) => ctx.holdsUnsent(screen, text));
  // While the keys go out: a settle then may be the only one that shows the box holding the message.
  const unwatch = ctx.watchSettles(() => void box.holds(ctx.screen.snapshot()));
  try {
    await typed();
  } finally {
    unwatch();
  }
  const head = shownHead(text);
  await enterUnlessTaken(ctx, box, (screen) => tookIt(ctx, screen, head), enter);
}

/**
 * Words typed into a dialog's own field (a choice that opens one in place: Gemini's "Type your feedback..."):
 * a busy TUI may take their Enter as part of the paste and keep them in the field, the dialog up. The field
 * holds them when the dialog of that kind still shows a choice that reads as them (`fieldHolds`). As for a
 * message, they count as taken only once the field was seen holding them and no longer does (a busy TUI shows
 * them late: looked for up to SHOWN_LATE_MS while the dialog is up, `dialogUp`); if the field still holds them
 * SUBMIT_SEEN_MS after the Enter, Enter is typed once more (never the words again).
 */
export async function submitWordsInPlace(
  ctx: ScreenWatch,
  fieldHolds: (screen: ScreenSnapshot, head: string) => boolean,
  dialogUp: (screen: ScreenSnapshot) => boolean,
  words: string,
): Promise<void> {
  const head = shownHead(words);
  if (head === '') return;
  const field = seenHolding((screen) => fieldHolds(screen, head));
  await enterUnlessTaken(ctx, field, (screen) => !dialogUp(screen), '\r');
}

/** Where typed keys wait for their Enter (a box, a field): whether it holds them, and whether it ever did. */
interface Holding {
  holds(screen: ScreenSnapshot): boolean;
  readonly seen: boolean;
}

function seenHolding(holdsNow: (screen: ScreenSnapshot) => boolean): Holding {
  let seen = false;
  return {
    holds: (screen) => {
      const held = holdsNow(screen);
      seen ||= held;
      return held;
    },
    get seen() {
      return seen;
    },
  };
}

/**
 * After the Enter: the keys are taken once `place` was seen holding them and no longer does; never seen, they
 * are looked for up to SHOWN_LATE_MS, unless `took` says the program took them meanwhile; still held
 * SUBMIT_SEEN_MS on, Enter is typed once more.
 */
async function enterUnlessTaken(
  ctx: ScreenWatch,
  place: Holding,
  took: (screen: ScreenSnapshot) => boolean,
  enter: string,
): Promise<void> {
  if (await ctx.untilScreen((screen) => !place.holds(screen) && place.seen, SUBMIT_SEEN_MS)) return;
  if (!place.seen) {
    await ctx.untilScreen((screen) => place.holds(screen) || took(screen), SHOWN_LATE_MS);
    if (!place.seen) return;
    if (await ctx.untilScreen((screen) => !place.holds(screen), SUBMIT_SEEN_MS)) return;
  }
  await enterWhileHeld(ctx, place.holds, enter);
}

/** The start of a message's first line, as looked for on a screen ('' for a message of spaces). */
function shownHead(text: string): string {
  const firstLine = text.split('\n').find((line) => line.trim() !== '') ?? '';
  return withoutSpaces(firstLine).slice(0, SHOWN_CHARS);
}

/**
 * The agent is at work (not idle at its box), or shows the message (`head`) outside its box: it took it.
 * Called only on a screen whose box does not hold the message.
 */
function tookIt(ctx: SubmitContext, screen: ScreenSnapshot, head: string): boolean {
  if (ctx.isIdle?.(screen) === false) return true;
  return head !== '' && withoutSpaces(screen.text).includes(head);
}

/**
 * Enter once more, typed only onto the screen judged: had the program written since, it may have taken the
 * first Enter, so the screen is read again (a redraw that changed nothing is no reason to leave it unsent).
 */
async function enterWhileHeld(
  ctx: ScreenWatch,
  holds: (screen: ScreenSnapshot) => boolean,
  enter: string,
): Promise<void> {
  for (let tries = 0; tries < ENTER_AGAIN_TRIES && !ctx.stopped(); tries++) {
    await ctx.screen.catchUp();
    const screen = ctx.screen.snapshot();
    if (!holds(screen)) return;
    const result = await ctx.pty.inject({ parts: [enter], gapMs: 0, ifOutputAt: screen.outputAt });
    if (result.typed) return;
    await ctx.screen.nextSettle(RETRY_SETTLE_MS);
  }
}
