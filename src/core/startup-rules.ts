/**
 * A question an agent asks before it can work (trust this folder?), and the keys that accept it.
 * Agents declare them; the terminal driver answers each once when auto-accept is on.
 */
export interface StartupPromptRule {
  /** What this rule accepts, for logs and docs. */
  name: string;
  /** Matched against the rendered screen text. */
  pattern: RegExp;
  /** Keys written to accept. */
  answer: string;
}
