// Peers come from Debian packages (DESIGN.md): when a binary is missing and we are root, one
// `apt-get update` and then `apt-get install -y <package>`; on failure the bench goes on without it.
import { spawnSync } from 'node:child_process';

let updated = false;

export function hasCommand(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** True when `command` is there, installing `debianPackage` first if it can. */
export function ensurePeerInstalled(command: string, debianPackage: string, log: (line: string) => void): boolean {
  if (hasCommand(command)) return true;
  if (process.getuid?.() !== 0 || !hasCommand('apt-get')) {
    log(`${debianPackage}: not installed and apt-get is not usable here; going on without it`);
    return false;
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!updated) {
    log('apt-get update (once) for the peers');
    updated = true;
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  }
  log(`apt-get install -y ${debianPackage}`);
  const result = spawnSync('apt-get', ['install', '-y', '-qq', debianPackage], { stdio: 'inherit', env });
  if (result.status !== 0 || !hasCommand(command)) {
    log(`${debianPackage}: install failed; going on without it`);
    return false;
  }
  return true;
}
