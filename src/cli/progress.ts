import cliProgress from 'cli-progress';
import { colourAllowed } from './output.js';

/** A progress bar on a terminal; plain periodic lines otherwise (CI logs, NO_COLOR, TERM=dumb). */
export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

export function progress(label: string): Progress {
  if (colourAllowed()) {
    const bar = new cliProgress.SingleBar(
      { format: `${label} [{bar}] {value}/{total} · {eta_formatted} left`, stream: process.stderr, hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(done, total) {
        if (!started) {
          bar.start(total, 0);
          started = true;
        }
        bar.update(done);
      },
      stop: () => started && bar.stop(),
    };
  }
  let lastTenth = -1;
  return {
    update(done, total) {
      const tenth = Math.floor((done / total) * 10);
      if (tenth !== lastTenth) {
        lastTenth = tenth;
        process.stderr.write(`${label}: ${done}/${total}\n`);
      }
    },
    stop: () => undefined,
  };
}
