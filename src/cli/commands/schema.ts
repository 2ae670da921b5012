import { writeOutput } from '../output.js';
import { scenarioJsonSchema } from '../../sim/scenario.js';

export function schemaCommand(flags: { out?: string }): number {
  const text = `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
  if (flags.out) writeOutput(flags.out, text);
  else process.stdout.write(text);
  return 0;
}
