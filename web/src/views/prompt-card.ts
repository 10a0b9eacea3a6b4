import { promptHeadline } from '../../../src/core/prompt-headline.js';
import { api, ApiError } from '../api.js';
import { append, button, h, type Child } from '../dom.js';
import { ago, timeLeft } from '../format.js';
import { href, sessionRoute } from '../router.js';
import { store } from '../store.js';
import { toast } from '../toast.js';
import type { ClusterNode, Prompt, PromptChoice } from '../types.js';
import { KIND_TITLES } from './common.js';

/** One waiting prompt: what is asked, where from, and a big button per possible answer. */

export interface PromptCardOptions {
  /** A link to the session's page (its terminal, or its conversation); not on that page itself. */
  linkToSession?: boolean;
}

/**
 * What `POST /api/prompts/:id/answer` answers (API.md): `queued` true when the prompt's machine (`node`) is
 * away, so the answer waits for it. A server that does not say `queued`: the machine's state in /api/config
 * tells.
 */
interface AnswerReply {
  ok: true;
  summary: string;
  queued?: boolean;
  node?: string;
}

/** A node of the cluster as /api/config lists it; `lastSeen` (ms) when the server says it. */
type Machine = ClusterNode & { lastSeen?: number | null };

export function promptCard(
  prompt: Prompt,
  onAnswered: (card: HTMLElement) => void = () => {},
  options: PromptCardOptions = {},
): HTMLElement {
  const { id } = prompt;
  const result = h('p', { class: 'prompt-result', role: 'status', 'data-testid': `result-${id}` });
  const questionId = `question-${id}`;
  const card = h('article', {
    class: `card prompt-card kind-${prompt.kind}`,
    'data-testid': `prompt-card-${id}`,
    'aria-labelledby': questionId,
  });

  const send = async (answer: string): Promise<void> => {
    const controls = Array.from(
      card.querySelectorAll<HTMLButtonElement | HTMLTextAreaElement>('button, textarea'),
    );
    controls.forEach((control) => (control.disabled = true));
    result.className = 'prompt-result';
    result.textContent = 'Sending…';
    // Its machine as the page knew it when the answer was sent.
    const away = awayMachine(prompt);
    try {
      const reply: AnswerReply = await api.answer(id, answer);
      result.classList.add('ok');
      result.textContent = answeredText(reply, away);
      card.classList.add('answered');
      onAnswered(card);
    } catch (error) {
      const message = refusal(error);
      result.classList.add('error');
      result.textContent = message;
      controls.forEach((control) => (control.disabled = false));
    } finally {
      void store.refreshPrompts();
      void store.refreshSessions();
      // Whether its machine is there (only /api/config says).
      if (machineOf(prompt)) void store.refreshConfig();
    }
  };

  const origin = prompt.origin;
  const question = promptHeadline(prompt.excerpt, 200) || KIND_TITLES[prompt.kind];
  const detail = prompt.detail.trim();
  // The full text, when it says more than the question (the command, the diff, the plan).
  const more = detail && !question.includes(detail) ? detail : null;
  append(card, [
    h('div', { class: 'prompt-head' }, [
      h('span', { class: 'kind' }, [KIND_TITLES[prompt.kind] ?? prompt.kind]),
      prompt.confidence === 'low' || prompt.confidence === 'medium'
        ? h('span', { class: 'tag', title: 'How sure agent-bridge is that the agent waits' }, [
            `${prompt.confidence} confidence`,
          ])
        : null,
      h('span', { class: 'time-left', 'data-expires-at': prompt.expiresAt }, [
        timeLeft(prompt.expiresAt - Date.now()),
      ]),
    ]),
    h('div', { class: 'origin' }, [
      [origin.host, origin.agent, origin.label].filter(Boolean).join(' · '),
      origin.cwd ? h('span', { class: 'mono small muted' }, [` ${origin.cwd}`]) : null,
    ]),
    machineNotice(prompt),
    h('h2', { class: 'question', id: questionId, 'data-testid': `question-${id}` }, [question]),
    more
      ? h('pre', { class: 'detail', tabindex: 0, 'aria-label': 'Full text', 'data-testid': `detail-${id}` }, [
          more,
        ])
      : null,
    h('div', { class: 'answers' }, [
      ...answerControls(prompt, send),
      options.linkToSession === false ? null : sessionLink(prompt),
    ]),
    result,
  ]);
  return card;
}

/**
 * What an answer became: given, or waiting for its machine, which is away (said in a notice too: the prompt
 * leaves the inbox once answered, and the notice stays).
 */
function answeredText(reply: AnswerReply, away: Machine | null): string {
  const node =
    reply.queued === undefined
      ? (away?.name ?? null)
      : reply.queued
        ? (reply.node ?? away?.name ?? null)
        : null;
  if (!node) return `Answered: ${reply.summary}`;
  const queued = `Answered: ${reply.summary}. ${node} is away: the answer waits, and is applied when ${node} is back (if the prompt still waits then).`;
  toast(queued, { kind: 'info', timeoutMs: 0 });
  return queued;
}

/**
 * The card's line about its machine, as /api/config says now (the inbox calls it again when that changes):
 * shown while the prompt's machine, a node of this hub's cluster, is away.
 */
export function updateMachineNotice(card: HTMLElement, prompt: Prompt): void {
  const notice = card.querySelector<HTMLElement>('.machine-away');
  if (notice) fillMachineNotice(notice, prompt);
}

function machineNotice(prompt: Prompt): HTMLElement {
  const notice = h('p', { class: 'machine-away muted small', 'data-testid': `machine-away-${prompt.id}` });
  fillMachineNotice(notice, prompt);
  return notice;
}

function fillMachineNotice(notice: HTMLElement, prompt: Prompt): void {
  const node = awayMachine(prompt);
  const seen = node?.lastSeen ? ` (last seen ${ago(new Date(node.lastSeen).toISOString())})` : '';
  const text = node
    ? `⚪ ${node.name} is away${seen}: an answer waits for it, and is applied when it is back if the prompt still waits.`
    : '';
  if (notice.textContent !== text) notice.textContent = text;
  notice.hidden = node === null;
}

/** The node of the cluster the prompt's session runs on (null: this machine's own, or not known yet). */
function machineOf(prompt: Prompt): Machine | null {
  const host = store.session(prompt.sessionId)?.host ?? prompt.origin.host;
  if (!store.config || host === store.config.host) return null;
  return (store.config.nodes ?? []).find((node) => node.name === host) ?? null;
}

function awayMachine(prompt: Prompt): Machine | null {
  const node = machineOf(prompt);
  return node && !node.online ? node : null;
}

function answerControls(prompt: Prompt, send: (answer: string) => Promise<void>): Child[] {
  const { id } = prompt;
  const big = (label: Child[], testid: string, answer: string, extra = ''): HTMLButtonElement =>
    button(label, { class: `btn btn-big ${extra}`, 'data-testid': testid }, () => void send(answer));
  const controls: Child[] = [];

  if (prompt.kind === 'unknown') {
    controls.push(
      h('p', { class: 'muted small' }, ['It may be waiting for input, or just quiet.']),
      h('div', { class: 'answer-row' }, [
        big(['⏎ Send Enter'], `enter-${id}`, 'enter', 'btn-primary'),
        big(['✕ Cancel'], `cancel-${id}`, 'cancel'),
      ]),
    );
  } else if (prompt.choices.length > 0) {
    controls.push(
      h(
        'div',
        { class: 'choices' },
        prompt.choices.map((choice) => choiceButton(prompt, choice, send)),
      ),
    );
  } else if (prompt.kind === 'confirm_enter') {
    controls.push(big(['⏎ Enter'], `enter-${id}`, 'enter', 'btn-primary'));
  } else if (prompt.kind !== 'free_text' && prompt.kind !== 'question') {
    // yes_no, and a permission or plan that came without the agent's own options.
    controls.push(
      h('div', { class: 'answer-row' }, [
        big(['✓ Yes'], `yes-${id}`, 'yes', 'btn-primary'),
        big(['✕ No'], `no-${id}`, 'no'),
      ]),
    );
  }
  // Words answer free text and questions, and say no with a reason where the agent takes one.
  if (prompt.kind === 'free_text' || prompt.kind === 'question')
    controls.push(textAnswer(id, send, 'Your answer', 'Type your answer'));
  else if (prompt.textChoice !== null)
    controls.push(textAnswer(id, send, 'Or say no, and why', 'What should it do instead?'));
  if (prompt.safeDefault) {
    controls.push(
      button(
        `Use default (${prompt.safeDefault})`,
        { class: 'btn', 'data-testid': `default-${id}` },
        () => void send('default'),
      ),
    );
  }
  return controls;
}

/** Where the prompt comes from, to see more of it: its terminal, or its conversation. */
function sessionLink(prompt: Prompt): HTMLElement | null {
  const session = store.session(prompt.sessionId);
  if (session && !session.live && !session.conversation) return null;
  const route = session ? sessionRoute(session) : ({ name: 'session', id: prompt.sessionId } as const);
  return h('a', { class: 'btn btn-quiet', href: href(route) }, [
    route.name === 'conversation' ? 'Open conversation' : 'Open terminal',
  ]);
}

function choiceButton(
  prompt: Prompt,
  choice: PromptChoice,
  send: (answer: string) => Promise<void>,
): HTMLElement {
  const forSession = prompt.allowForSessionChoice === choice.number;
  return button(
    [
      h('span', { class: 'choice-number' }, [String(choice.number)]),
      h('span', { class: 'choice-text' }, [
        h('span', { class: 'choice-label' }, [choice.label]),
        choice.description ? h('span', { class: 'choice-description' }, [choice.description]) : null,
      ]),
    ],
    {
      class: `btn btn-big choice${forSession ? ' choice-session' : ''}`,
      'data-testid': `choice-${prompt.id}-${choice.number}`,
    },
    () => void send(String(choice.number)),
  );
}

function textAnswer(
  id: string,
  send: (answer: string) => Promise<void>,
  label: string,
  placeholder: string,
): HTMLElement {
  const fieldId = `answer-${id}`;
  const field = h('textarea', {
    id: fieldId,
    rows: 2,
    class: 'answer-text',
    placeholder,
    'data-testid': `answer-text-${id}`,
  });
  const submit = (): void => {
    if (field.value.trim()) void send(field.value);
    else field.focus();
  };
  // Enter sends, Shift+Enter makes a new line.
  field.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    }
  });
  return h('div', { class: 'text-answer' }, [
    h('label', { for: fieldId }, [label]),
    h('div', { class: 'answer-row' }, [
      field,
      button('Send', { class: 'btn btn-primary', 'data-testid': `send-${id}` }, submit),
    ]),
  ]);
}

function refusal(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 404) return 'This prompt is gone (answered or expired).';
    if (error.status === 409) return `Not applied: ${error.message}`;
    if (error.status === 400) return `Does not fit: ${error.message}`;
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
