import { Terminal } from '@xterm/xterm';
import { api } from '../api.js';
import { button, h, replace } from '../dom.js';
import { clock } from '../format.js';
import { CastPlayer, parseCast, shortenedNote, type PlayerState } from '../player.js';
import { href } from '../router.js';
import { onSchemeChange, terminalOptions, terminalTheme } from '../theme.js';
import { errorText, note } from './common.js';
import { recordingName } from './recordings.js';

/** #/recordings/<id>: plays one recording in the page, with play/pause, a position slider and a speed. */

const SPEEDS = [1, 2, 4];

interface Controls {
  element: HTMLElement;
  toggle: HTMLButtonElement;
  seek: HTMLInputElement;
  time: HTMLElement;
  speed: HTMLSelectElement;
  size: HTMLSelectElement;
}

function controls(onToggle: () => void): Controls {
  const toggle = button(
    '▶ Play',
    { class: 'btn btn-primary', 'data-testid': 'player-toggle', disabled: true },
    onToggle,
  );
  const seek = h('input', {
    type: 'range',
    min: 0,
    max: 0,
    step: 0.1,
    value: 0,
    'aria-label': 'Position',
    'data-testid': 'player-seek',
    disabled: true,
  });
  const time = h('span', { class: 'player-time mono', 'data-testid': 'player-time' }, ['0:00']);
  const speed = h(
    'select',
    { id: 'player-speed', 'data-testid': 'player-speed' },
    SPEEDS.map((s) => h('option', { value: s }, [`${s}x`])),
  );
  const size = h(
    'select',
    { id: 'player-size', 'data-testid': 'player-size' },
    SIZE_MODES.map(([value, label]) => h('option', { value }, [label])),
  );
  const element = h('div', { class: 'player-controls' }, [
    toggle,
    seek,
    time,
    h('label', { for: 'player-speed' }, ['Speed']),
    speed,
    h('label', { for: 'player-size' }, ['Size']),
    size,
  ]);
  return { element, toggle, seek, time, speed, size };
}

type SizeMode = 'rows' | 'width' | 'actual';
const SIZE_MODES: Array<[SizeMode, string]> = [
  ['rows', 'Fit the height'],
  ['width', 'Fit the width'],
  ['actual', 'Actual size'],
];
/** Smaller than this is unreadable: the player scrolls instead. */
const MIN_FONT = 8;

/**
 * A recording keeps its own size. By default its rows fit the screen's height and it scrolls sideways if
 * wider (a phone shows a wide recording readable, not at a 5 px font); or it fits the width, or is shown at the
 * normal font. Never below MIN_FONT: then it scrolls.
 */
function fitFont(term: Terminal, screen: HTMLElement, baseFont: number, mode: SizeMode): void {
  const inner = screen.querySelector<HTMLElement>('.xterm-screen');
  if (!inner || inner.offsetWidth === 0) return;
  const font = term.options.fontSize ?? baseFont;
  const natural = {
    width: (inner.offsetWidth / font) * baseFont,
    height: (inner.offsetHeight / font) * baseFont,
  };
  const top = screen.getBoundingClientRect().top;
  const room = {
    width: screen.clientWidth - 12,
    // Leave room for the controls under it.
    height: Math.max(120, window.innerHeight - Math.max(0, top) - 120),
  };
  const scale =
    mode === 'actual' ? 1 : mode === 'width' ? room.width / natural.width : room.height / natural.height;
  const wanted = Math.max(MIN_FONT, Math.min(baseFont, Math.floor(scale * baseFont * 10) / 10));
  if (Math.abs(wanted - font) > 0.05) term.options.fontSize = wanted;
}

export function playerView(root: HTMLElement, id: string): () => void {
  const screen = h('div', { class: 'player-screen', 'data-testid': 'player-terminal' });
  const ui = controls(() => player?.toggle());
  const title = h('h1', { class: 'player-title' }, [id]);
  const status = note('Loading…', 'player-note');
  replace(root, [
    h('section', { class: 'view', 'aria-label': 'Recording player' }, [
      h('div', { class: 'view-head' }, [
        h('a', { class: 'btn btn-quiet', href: href({ name: 'recordings' }) }, ['← Recordings']),
        title,
      ]),
      h('div', { class: 'player', 'data-testid': 'player' }, [screen, ui.element]),
      status,
    ]),
  ]);

  const term = new Terminal({
    ...terminalOptions(),
    disableStdin: true,
    cursorBlink: false,
    scrollback: 1000,
  });
  term.open(screen);
  const baseFont = term.options.fontSize ?? 13;
  const refit = (): void => {
    requestAnimationFrame(() => fitFont(term, screen, baseFont, ui.size.value as SizeMode));
  };
  ui.size.addEventListener('change', refit);
  term.onResize(refit);
  window.addEventListener('resize', refit);
  const offScheme = onSchemeChange(() => (term.options.theme = terminalTheme()));

  let player: CastPlayer | null = null;
  let seeking = false;
  const show = (state: PlayerState): void => {
    ui.toggle.textContent = state.playing ? '❚❚ Pause' : state.ended ? '↻ Replay' : '▶ Play';
    ui.toggle.setAttribute('aria-pressed', String(state.playing));
    if (!seeking) ui.seek.value = String(state.time);
    ui.time.textContent = `${clock(state.time)} / ${clock(state.duration)}`;
  };
  ui.seek.addEventListener('input', () => (seeking = true));
  ui.seek.addEventListener('change', () => {
    seeking = false;
    player?.seek(Number(ui.seek.value));
  });
  ui.speed.addEventListener('change', () => player?.setSpeed(Number(ui.speed.value)));

  let alive = true;
  // Named as its session is, where the store knows it.
  void api
    .recordings()
    .then((all) => {
      const found = all.find((r) => r.id === id);
      if (alive && found) title.textContent = recordingName(found);
    })
    .catch(() => undefined);
  api
    .recording(id)
    .then((text) => {
      if (!alive) return;
      const cast = parseCast(text);
      if (cast.title && title.textContent === id) title.textContent = cast.title;
      ui.seek.max = String(cast.duration);
      ui.seek.disabled = false;
      ui.toggle.disabled = false;
      // Then why its length here is not the list's (idle gaps shortened), if it is not.
      status.textContent = shortenedNote(cast);
      status.hidden = status.textContent === '';
      player = new CastPlayer(term, cast, show);
      player.setSpeed(Number(ui.speed.value));
      player.play();
      refit();
    })
    .catch((error: unknown) => {
      if (alive) status.textContent = `Could not play this recording: ${errorText(error)}`;
    });

  return () => {
    alive = false;
    player?.dispose();
    window.removeEventListener('resize', refit);
    offScheme();
    term.dispose();
  };
}
