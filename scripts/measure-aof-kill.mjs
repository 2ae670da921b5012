// What redis-server loses of acknowledged writes when SIGKILLed under load, per appendfsync policy:
// node scripts/measure-aof-kill.mjs always,everysec,off 20 (8 writers, 16 writes in flight each, killed 1.5–3 s in).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net from 'node:net';
import Redis from 'ioredis';

const freePort = () => new Promise((res) => { const s = net.createServer(); s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => res(p)); }); });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function start(port, dir, fsync) {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', fsync === 'off' ? 'no' : 'yes', ...(fsync === 'off' ? [] : ['--appendfsync', fsync])];
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  for (let i = 0; i < 200; i++) {
    const c = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    try { await c.connect(); await c.ping(); c.disconnect(); return child; } catch { c.disconnect(); await sleep(25); }
  }
  throw new Error('no start');
}
async function once(fsync, runIndex) {
  const dir = mkdtempSync(join(tmpdir(), 'h39f-aof-'));
  const port = await freePort();
  let child = await start(port, dir, fsync);
  const writers = 8;
  const acked = new Set();
  let stop = false;
  const clients = [];
  const loops = [];
  for (let w = 0; w < writers; w++) {
    const c = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
    c.on('error', () => {});
    await new Promise((r) => c.once('ready', r));
    clients.push(c);
    loops.push((async () => {
      let i = 0;
      while (!stop) {
        // 16 writes in flight per writer; each acknowledged one is recorded.
        const batch = [];
        for (let k = 0; k < 16; k++) { const id = `${w}:${i++}`; batch.push(c.sadd('acked', id).then(() => acked.add(id), () => {})); }
        await Promise.all(batch);
        if (c.status !== 'ready') return;
      }
    })());
  }
  const killAt = 1500 + Math.floor(Math.random() * 1500);
  await sleep(killAt);
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  stop = true;
  await Promise.all(loops);
  for (const c of clients) c.disconnect();
  child = await start(port, dir, fsync);
  const c = new Redis({ port, host: '127.0.0.1' });
  c.on('error', () => {});
  const kept = new Set(await c.smembers('acked'));
  c.disconnect();
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
  let lost = 0;
  for (const id of acked) if (!kept.has(id)) lost++;
  return { fsync, run: runIndex, killAtMs: killAt, acked: acked.size, kept: kept.size, lost };
}
const policies = process.argv[2] ? process.argv[2].split(',') : ['always', 'everysec', 'off'];
const runs = Number(process.argv[3] ?? 20);
for (const p of policies) {
  const rows = [];
  for (let i = 0; i < runs; i++) { const r = await once(p, i); rows.push(r); console.log(JSON.stringify(r)); }
  const lostRuns = rows.filter((r) => r.lost > 0).length;
  const totalAcked = rows.reduce((a, r) => a + r.acked, 0);
  const totalLost = rows.reduce((a, r) => a + r.lost, 0);
  console.log(`SUMMARY ${p}: ${runs} SIGKILLs under load, runs losing an acknowledged write: ${lostRuns}, acknowledged writes ${totalAcked}, lost ${totalLost}, max lost in a run ${Math.max(...rows.map((r) => r.lost))}`);
}
