import { existsSync } from 'node:fs';
import path from 'node:path';
import { readStoredChainHead, type ChainHead } from '../../store/audit/audit-head.js';
import { verifyAuditLog } from '../../store/audit/audit-verify.js';
import { dataDir } from '../../store/paths.js';
import { AUDIT_FILE, DATABASE_FILE } from '../../store/store.js';
import { CliFailure } from '../errors.js';
import { printJson, stdoutTarget, type OutputTarget } from '../output.js';

/**
 * `audit verify`: the hash chain from the first line, and its end against the head the database recorded, so
 * a log cut short or deleted is reported (exit 1), not found intact.
 */
export async function auditVerifyCommand(
  options: { json?: boolean },
  target: OutputTarget = stdoutTarget,
): Promise<number> {
  const dir = dataDir();
  const file = path.join(dir, AUDIT_FILE);
  const head = storedHead(path.join(dir, DATABASE_FILE));
  if (!existsSync(file) && !head) {
    if (options.json) printJson(target, { ok: true, entries: 0, file });
    else target.write(`no audit log yet (${file})\n`);
    return 0;
  }
  const result = await verifyAuditLog(file, head);
  if (options.json) printJson(target, { ...result, file });
  else if (result.ok)
    target.write(`audit log intact: ${result.entries} entries, hash chain verified (${file})\n`);
  else
    process.stderr.write(
      `agent-bridge: audit log broken at line ${result.line}: ${result.reason} (${file})\n`,
    );
  return result.ok ? 0 : 1;
}

function storedHead(dbFile: string): ChainHead | null {
  try {
    return readStoredChainHead(dbFile);
  } catch (error) {
    throw new CliFailure(
      `cannot read ${dbFile} to check that no audit entries were cut (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}
