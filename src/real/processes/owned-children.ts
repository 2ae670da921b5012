import { spawn, type ChildProcess } from 'node:child_process';

/**
 * Every child process this Node process started and that has not exited yet, by PID. They are
 * SIGKILLed when Node exits, normally or by a signal (below), so a failed test run, a crashed runner
 * or an interrupted `dynoq sim --real` does not leave redis-servers and Dynomites behind.
 */
const owned = new Set<ChildProcess>();

function killAll(): void {
  for (const child of owned) signal(child, 'SIGCONT');
  for (const child of owned) signal(child, 'SIGKILL');
}

process.once('exit', killAll);

/**
 * A signal that ends Node (Ctrl-C, a CI job's timeout, `kill`) runs no 'exit' handler: the children
 * are killed here, then the signal is raised again so that Node ends as it would have. Hooked with
 * the first child, so a process that never starts one keeps its signal handling.
 */
let signalsHooked = false;
function hookSignals(): void {
  if (signalsHooked) return;
  signalsHooked = true;
  for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(name, () => {
      killAll();
      process.kill(process.pid, name);
    });
  }
}

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
  hookSignals();
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
