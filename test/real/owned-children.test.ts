import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { redisRequired, redisServerBinary } from '../support/redis-server.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const available = redisServerBinary() !== null;
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');

/** Running: not gone and not a zombie (a killed orphan stays one until whoever adopted it reaps it). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe.runIf(available)('owned child processes die with their owner', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`a runner ended by ${signal} leaves no redis-server behind, a paused one included`, async () => {
      const script = `
        import { startRedisServer } from './src/real/processes/redis-server.ts';
        import { pauseOwned } from './src/real/processes/owned-children.ts';
        const a = await startRedisServer();
        const b = await startRedisServer();
        pauseOwned(b.process);
        console.log(JSON.stringify([a.process.pid, b.process.pid]));
        setInterval(() => {}, 1000);
      `;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
      const pids = await new Promise<number[]>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(JSON.parse(out.trim()) as number[]);
        });
        child.once('exit', (code) => reject(new Error(`runner exited early with ${code}`)));
      });
      expect(pids.every(alive)).toBe(true);
      const ended = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_code, sig) => r(sig)));
      child.kill(signal);
      expect(await ended).toBe(signal);
      await new Promise((r) => setTimeout(r, 200));
      expect(pids.filter(alive)).toEqual([]);
    }, 30_000);
  }
});
