import { guaranteesMarkdown, measureGuarantees } from '../../sim/guarantees.js';
import { writeOutput } from '../output.js';
import { progress } from '../progress.js';

export async function guaranteesCommand(flags: { seeds: number; out: string }): Promise<number> {
  const bar = progress('guarantees');
  const rows = await measureGuarantees({ seeds: flags.seeds, onRun: (d, t) => bar.update(d, t) });
  bar.stop();
  const md = guaranteesMarkdown(rows, `dynoq guarantees --seeds ${flags.seeds}`);
  writeOutput(flags.out, md);
  console.log(md);
  console.log(`written to ${flags.out}`);
  return 0;
}
