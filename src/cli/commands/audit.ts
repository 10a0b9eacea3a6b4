import { existsSync } from 'node:fs';
import path from 'node:path';
import { verifyAuditLog } from '../../store/audit/audit-verify.js';
import { dataDir } from '../../store/paths.js';
import { AUDIT_FILE } from '../../store/store.js';
import { printJson, stdoutTarget, type OutputTarget } from '../output.js';

export async function auditVerifyCommand(
  options: { json?: boolean },
  target: OutputTarget = stdoutTarget,
): Promise<number> {
  const file = path.join(dataDir(), AUDIT_FILE);
  if (!existsSync(file)) {
    if (options.json) printJson(target, { ok: true, entries: 0, file });
    else target.write(`no audit log yet (${file})\n`);
    return 0;
  }
  const result = await verifyAuditLog(file);
  if (options.json) printJson(target, { ...result, file });
  else if (result.ok)
    target.write(`audit log intact: ${result.entries} entries, hash chain verified (${file})\n`);
  else
    process.stderr.write(
      `agent-bridge: audit log broken at line ${result.line}: ${result.reason} (${file})\n`,
    );
  return result.ok ? 0 : 1;
}
