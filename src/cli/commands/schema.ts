import { writeOutput } from '../output.js';
import { scenarioJsonSchema } from '../../sim/run/scenario.js';
import { historyJsonSchema } from '../../model/history-file.js';

/** `dynoq schema`: the JSON Schema of scenario files, or with --history of one line of a history file. */
export function schemaCommand(flags: { out?: string; history?: boolean }): number {
  const text = `${JSON.stringify(flags.history ? historyJsonSchema() : scenarioJsonSchema(), null, 2)}\n`;
  if (flags.out) writeOutput(flags.out, text);
  else process.stdout.write(text);
  return 0;
}
