import { colourAllowed } from './output.js';

/**
 * Progress of a long command on stderr, with an ETA from the pace so far: a bar redrawn in place on a
 * terminal; plain lines at every tenth otherwise (CI logs, NO_COLOR, TERM=dumb). Wall-clock time is
 * read here only to report progress, never on a simulated path.
 */
interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

export function formatEta(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  const s = Math.round(ms / 1_000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

function eta(started: number, done: number, total: number): string {
  if (done <= 0 || done >= total) return done >= total ? '0s' : '?';
  return formatEta(((Date.now() - started) / done) * (total - done));
}

export function progress(label: string): Progress {
  const started = Date.now();
  if (colourAllowed()) {
    let drawn = false;
    return {
      update(done, total) {
        const width = 30;
        const filled = total > 0 ? Math.round((done / total) * width) : 0;
        process.stderr.write(`\r${label} [${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${done}/${total} · ${eta(started, done, total)} left  `);
        drawn = true;
      },
      stop() {
        if (drawn) process.stderr.write('\n');
        drawn = false;
      },
    };
  }
  let lastTenth = -1;
  return {
    update(done, total) {
      const tenth = Math.floor((done / total) * 10);
      if (tenth !== lastTenth) {
        lastTenth = tenth;
        process.stderr.write(`${label}: ${done}/${total} · ${eta(started, done, total)} left\n`);
      }
    },
    stop: () => undefined,
  };
}
