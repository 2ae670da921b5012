import { describe, expect, it } from 'vitest';
import { StoppableTimers } from '../../src/real/twin/real-time.js';

/** A real twin's paused client (client-pause): its timers and replies wait until the pause ends. */
describe('a real client paused', () => {
  it('fires a timer due during the pause only once the pause is over', async () => {
    const timers = new StoppableTimers();
    const started = Date.now();
    timers.pausedUntil = started + 300;
    const fired = await new Promise<number>((resolve) => timers.setTimeout(() => resolve(Date.now()), 20));
    expect(fired - started).toBeGreaterThanOrEqual(290);
  });

  it('holds a reply (afterPause) until the pause ends, or until resume() heals it early', async () => {
    const timers = new StoppableTimers();
    timers.pausedUntil = Date.now() + 10_000;
    let released = false;
    const waiting = timers.afterPause().then(() => (released = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(released).toBe(false);
    timers.resume();
    await waiting;
    expect(released).toBe(true);
    expect(timers.pausedUntil).toBe(0);
  });

  it('a stopped (crashed) client runs nothing, paused or not', async () => {
    const timers = new StoppableTimers();
    let ran = false;
    timers.setTimeout(() => (ran = true), 10);
    timers.stop();
    await new Promise((r) => setTimeout(r, 50));
    expect(ran).toBe(false);
  });
});
