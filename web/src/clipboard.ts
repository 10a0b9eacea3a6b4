/** Writes text to the clipboard: the async API where allowed, else the old execCommand way. */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // fall through: permission refused or the page is not focused
    }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  const focused = document.activeElement;
  area.select();
  try {
    if (!document.execCommand('copy')) throw new Error('copy was refused');
  } finally {
    area.remove();
    if (focused instanceof HTMLElement) focused.focus();
  }
}
