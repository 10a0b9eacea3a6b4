/** Chat platforms give files as URLs: fetch one, refusing more than `maxBytes` before or while reading it. */
export const DOWNLOAD_TIMEOUT_MS = 30_000;

export async function fetchCapped(
  url: string,
  maxBytes: number,
  init: { timeoutMs?: number; headers?: Record<string, string> } = {},
): Promise<Buffer> {
  const tooLarge = () => new Error(`the file is larger than ${Math.round(maxBytes / 1024 / 1024)} MB`);
  const response = await fetch(url, {
    signal: AbortSignal.timeout(init.timeoutMs ?? DOWNLOAD_TIMEOUT_MS),
    ...(init.headers ? { headers: init.headers } : {}),
  });
  if (!response.ok) throw new Error(`download failed (${response.status})`);
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of (response.body ?? []) as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}
