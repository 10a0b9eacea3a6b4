/** A tiny element builder: no framework, just typed DOM calls. */

export type Child = Node | string | number | null | undefined | false;
export type Attrs = Record<string, string | number | boolean | null | undefined>;
export type Handlers = { [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  children: Child[] = [],
  on: Handlers = {},
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  for (const [name, handler] of Object.entries(on)) {
    element.addEventListener(name, handler as EventListener);
  }
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function replace(parent: Node, children: Child[]): void {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, children);
}

/**
 * Replaces an element's children only when they would look different: a re-render that changes nothing must
 * not swap the nodes a person is pressing (a tap whose press and release land on different nodes is lost) or
 * that holds the keyboard focus.
 */
export function replaceIfChanged(parent: Element, children: Child[]): void {
  const next = document.createElement(parent.tagName);
  append(next, children);
  if (next.innerHTML === parent.innerHTML) return;
  replace(parent, [...next.childNodes]);
}

/** A button that does not submit forms. */
export function button(
  label: Child | Child[],
  attrs: Attrs,
  onClick: (event: MouseEvent) => void,
): HTMLButtonElement {
  return h('button', { type: 'button', ...attrs }, Array.isArray(label) ? label : [label], {
    click: onClick,
  });
}

/**
 * Keeps a list of keyed children in order, creating only the new ones and updating the others in place,
 * so that inputs a person is typing into survive a refresh. `update` may return a replacement element.
 */
export function reconcile<T>(
  parent: HTMLElement,
  items: readonly T[],
  key: (item: T) => string,
  create: (item: T) => HTMLElement,
  update: (element: HTMLElement, item: T) => HTMLElement | void,
): void {
  const existing = new Map<string, HTMLElement>();
  for (const child of Array.from(parent.children)) {
    if (child instanceof HTMLElement && child.dataset.key !== undefined)
      existing.set(child.dataset.key, child);
  }
  // Gone ones first: moving an element (to close a gap) would take the focus from it.
  const wanted = new Set(items.map(key));
  for (const [id, stale] of existing) {
    if (wanted.has(id)) continue;
    stale.remove();
    existing.delete(id);
  }
  let cursor: Element | null = parent.firstElementChild;
  for (const item of items) {
    const id = key(item);
    let element = existing.get(id);
    if (element) {
      existing.delete(id);
      const replacement = update(element, item);
      if (replacement && replacement !== element) {
        replacement.dataset.key = id;
        if (cursor === element) cursor = replacement;
        element.replaceWith(replacement);
        element = replacement;
      }
    } else {
      element = create(item);
      element.dataset.key = id;
    }
    if (element !== cursor) parent.insertBefore(element, cursor);
    else cursor = cursor.nextElementSibling;
  }
}
