/**
 * A length of time as a person says it, to the unit that matters: "40 s", "5 min", "2 h", "1 h 30 min".
 * Whole minutes from a minute on (a prompt's "expires in" or an idle timeout is never read to the second), seconds below it.
 */
export function spokenDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}
