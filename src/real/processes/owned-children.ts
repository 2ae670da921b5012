import { spawn, type ChildProcess } from 'node:child_process';

/**
 * Every child process this Node process started and that has not exited yet, by PID. They are
 * SIGKILLed when Node exits (any way that still runs an 'exit' handler), so a failed test run or a
 * crashed runner does not leave redis-servers and Dynomites behind on the machine.
 */
const owned = new Set<ChildProcess>();

process.once('exit', () => {
  for (const child of owned) signal(child, 'SIGCONT');
  for (const child of owned) signal(child, 'SIGKILL');
});

function signal(child: ChildProcess, name: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(child.pid, name);
  } catch {
    // already gone
  }
}

/** Start `binary` with no stdio attached and own it until it exits. */
export function spawnOwned(binary: string, args: readonly string[]): ChildProcess {
  const child = spawn(binary, args, { stdio: 'ignore' });
  owned.add(child);
  child.once('exit', () => owned.delete(child));
  // A spawn failure (ENOENT) is reported as an exit code by the start's wait; do not crash on it.
  child.once('error', () => owned.delete(child));
  return child;
}

export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

export function exited(child: ChildProcess): Promise<void> {
  return hasExited(child) ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

/** SIGKILL and wait until reaped. SIGCONT first: a SIGSTOPped process dies on SIGKILL too, but is then reaped at once. */
export async function killOwned(child: ChildProcess): Promise<void> {
  if (hasExited(child)) return;
  signal(child, 'SIGCONT');
  signal(child, 'SIGKILL');
  await exited(child);
}

export function pauseOwned(child: ChildProcess): void {
  if (!hasExited(child)) signal(child, 'SIGSTOP');
}

export function resumeOwned(child: ChildProcess): void {
  if (!hasExited(child)) signal(child, 'SIGCONT');
}

/** The PIDs of the owned children still running (a test checks that stop() left none). */
export function ownedPids(): number[] {
  return [...owned].filter((c) => !hasExited(c) && c.pid !== undefined).map((c) => c.pid!);
}
