import {
  createCipheriv,
  createDecipheriv,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';

/**
 * Sealed text: encrypted to one session's public key (X25519 + HKDF-SHA256 + AES-256-GCM, an ephemeral key
 * per box), so an answer to a password prompt can cross processes through the store without ever being
 * stored in clear. Only the session that made the key pair can open it, and it forgets the key when it ends.
 */

const INFO = Buffer.from('agent-bridge sealed answer v1');

export interface SealingKeys {
  /** Base64 DER (SPKI): kept in the store with the session. */
  publicKey: string;
  privateKey: KeyObject;
}

export function newSealingKeys(): SealingKeys {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  return { publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'), privateKey };
}

/** `v1.<ephemeral public key>.<iv>.<tag>.<ciphertext>`, each base64url. */
export function seal(publicKeyB64: string, text: string): string {
  const recipient = createPublicKey({
    key: Buffer.from(publicKeyB64, 'base64'),
    format: 'der',
    type: 'spki',
  });
  const ephemeral = generateKeyPairSync('x25519');
  const key = derive(diffieHellman({ privateKey: ephemeral.privateKey, publicKey: recipient }));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  const sender = ephemeral.publicKey.export({ type: 'spki', format: 'der' });
  return ['v1', sender, iv, cipher.getAuthTag(), body]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** The text, or an error when the box was not sealed to this key or was changed. */
export function openSealed(privateKey: KeyObject, box: string): string {
  const [version, sender, iv, tag, body] = box.split('.');
  if (version !== 'v1' || !sender || !iv || !tag || body === undefined)
    throw new Error('not a sealed answer');
  const senderKey = createPublicKey({ key: Buffer.from(sender, 'base64url'), format: 'der', type: 'spki' });
  const key = derive(diffieHellman({ privateKey, publicKey: senderKey }));
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

function derive(shared: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', shared, Buffer.alloc(0), INFO, 32));
}
