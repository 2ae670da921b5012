import { RealProcessError } from '../real-process-error.js';

/**
 * Poll `check` every `everyMs` until it answers true; a typed timeout after `ms`. A throw counts as
 * false (a connection refused while a process starts), except a RealProcessError, which gives up
 * at once (the process being waited for exited).
 */
export async function until(what: string, ms: number, check: () => Promise<boolean>, everyMs = 100): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const done = await check().catch((err: unknown) => {
      if (err instanceof RealProcessError) throw err;
      return false;
    });
    if (done) return;
    if (Date.now() > deadline) throw new RealProcessError('timeout', `${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
