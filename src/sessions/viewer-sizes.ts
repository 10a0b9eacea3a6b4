/** A terminal size in cells. */
export interface CellSize {
  cols: number;
  rows: number;
}

/** What a viewer is told of the terminal's size: the size, and whether it is this viewer's own. */
export interface SizeInfo extends CellSize {
  driving: boolean;
}

interface Seat {
  readOnly: boolean;
  /**
   * It drives only for viewers of its own that it relays (serve, for the browsers it serves itself): until it
   * is active it yields to any viewer, and while it drives unasked the terminal keeps its size.
   */
  standIn: boolean;
  /** The size that fits this viewer's screen, once it said so. */
  wanted: CellSize | null;
  /** When it last typed or asked to drive (a counter, not a clock): 0 until it does. */
  activeAt: number;
  joinedAt: number;
}

/**
 * Which viewer's size the terminal takes, when several watch it (tmux's `window-size latest`): the viewer that
 * typed (or pressed "Fit to this screen") last; before anyone did, the one that came first. A read-only viewer
 * never drives. The others keep seeing the terminal at the driver's size (scaled or letterboxed), so a phone
 * that joins no longer rewraps vim on the desktop.
 */
export class SizeArbiter<V> {
  private readonly seats = new Map<V, Seat>();
  private counter = 0;
  private driver: V | null = null;

  /**
   * `apply` resizes the terminal to the driver's size; null when something else sizes it (the terminal that
   * `agent-bridge run` runs in): then no viewer drives, and `resized` tells them the size it took.
   */
  constructor(
    private size: CellSize,
    private readonly apply: ((size: CellSize) => void) | null,
    private readonly tell: (viewer: V, info: SizeInfo) => void,
  ) {}

  /** The terminal was resized by what sizes it (not a viewer). */
  resized(size: CellSize): void {
    if (size.cols === this.size.cols && size.rows === this.size.rows) return;
    this.size = size;
    for (const viewer of this.seats.keys())
      this.tell(viewer, { ...this.size, driving: viewer === this.driver });
  }

  get current(): CellSize {
    return this.size;
  }

  /** The viewer whose size the terminal has, if any. */
  get driving(): V | null {
    return this.driver;
  }

  add(viewer: V, readOnly: boolean, standIn = false): void {
    this.seats.set(viewer, { readOnly, standIn, wanted: null, activeAt: 0, joinedAt: ++this.counter });
    this.settle(viewer);
  }

  remove(viewer: V): void {
    if (!this.seats.delete(viewer)) return;
    if (this.driver === viewer) this.settle(null);
  }

  /** The size that fits this viewer (it resized its window, changed its font). */
  wants(viewer: V, size: CellSize): void {
    const seat = this.seats.get(viewer);
    if (!seat || seat.readOnly) return;
    seat.wanted = size;
    if (this.driver === viewer || this.driver === null) this.settle(null);
  }

  /** It typed, or asked to drive: its size becomes the terminal's. */
  active(viewer: V): void {
    const seat = this.seats.get(viewer);
    if (!seat || seat.readOnly) return;
    seat.activeAt = ++this.counter;
    if (this.driver !== viewer) this.settle(null);
  }

  /** Elects the driver, resizes the terminal to its size, and tells whoever's view changed (`also`: this one). */
  private settle(also: V | null): void {
    const before = this.driver;
    const previousSize = this.size;
    this.driver = this.elect();
    const seat = this.driver === null ? null : this.seats.get(this.driver)!;
    const wanted = seat && (!seat.standIn || seat.activeAt > 0) ? seat.wanted : null;
    if (this.apply && wanted && (wanted.cols !== this.size.cols || wanted.rows !== this.size.rows)) {
      this.size = wanted;
      this.apply(wanted);
    }
    const resized = previousSize !== this.size;
    for (const viewer of this.seats.keys()) {
      const changedRole = viewer === before || viewer === this.driver;
      if (resized || changedRole || viewer === also)
        this.tell(viewer, { ...this.size, driving: viewer === this.driver });
    }
  }

  private elect(): V | null {
    if (!this.apply) return null;
    let best: V | null = null;
    let bestSeat: Seat | null = null;
    for (const [viewer, seat] of this.seats) {
      if (seat.readOnly) continue;
      if (!bestSeat || ranksAbove(seat, bestSeat)) {
        best = viewer;
        bestSeat = seat;
      }
    }
    return best;
  }
}

/** Who drives: the one active last; among those never active, a viewer before a stand-in, then the first come. */
function ranksAbove(seat: Seat, other: Seat): boolean {
  if (seat.activeAt !== other.activeAt) return seat.activeAt > other.activeAt;
  if (seat.standIn !== other.standIn) return !seat.standIn;
  return seat.joinedAt < other.joinedAt;
}
