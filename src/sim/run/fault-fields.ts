import * as z from 'zod';
import { faultSchema, type Fault } from '../faults/index.js';

/**
 * A fault's fields as files name them. A scenario file, like a history's fault line, names what a
 * fault strikes `target`; the simulator's fault objects name a struck zone `zone`, and keep it so that
 * every trace (and its hash) stays as recorded. `zone` is still read in files, with a deprecation note.
 */

type FaultOption = z.ZodObject;
const OPTIONS = faultSchema.options as unknown as readonly FaultOption[];

const kindOf = (o: FaultOption): string => (o.shape.kind as z.ZodLiteral<string>).value;

/** The kinds whose struck zone is a field (`zone` in the simulator, `target` in files). */
const ZONE_KINDS: ReadonlySet<string> = new Set(OPTIONS.filter((o) => 'zone' in o.shape).map(kindOf));

/** The file form of each zone kind's schema, for the JSON Schema (its `target` required, `zone` deprecated). */
const FILE_FORMS = new WeakSet<object>();

/** A zone kind's file form: `target` where the simulator has `zone`, the old name accepted; parses to the simulator's fault. */
function fileForm(option: FaultOption): z.ZodType {
  if (!('zone' in option.shape)) return option;
  const zone = option.shape.zone as z.ZodString;
  const shape = Object.fromEntries(
    Object.entries(option.shape).flatMap(([key, field]) =>
      key === 'zone' ? [['target', zone.optional()], ['zone', zone.optional().describe('deprecated name of `target` (still read, with a note)').meta({ deprecated: true })]] : [[key, field]],
    ),
  );
  const named = z.strictObject(shape).superRefine((f, ctx) => {
    if (f.target !== undefined && f.zone !== undefined) ctx.addIssue({ code: 'custom', path: ['zone'], message: 'give `target` (or its deprecated name `zone`), not both' });
    else if (f.target === undefined && f.zone === undefined) ctx.addIssue({ code: 'custom', path: ['target'], message: 'required: the zone the fault strikes' });
  });
  FILE_FORMS.add(named);
  // through the simulator's own schema: its field order, so the fault is the object it always was
  return named.transform(({ target, zone: old, ...rest }) => option.parse({ ...rest, zone: target ?? old }) as Fault);
}

/** What a file may say for a fault: `target` naming a struck zone (or, deprecated, `zone`), never both. */
type FileFaultInput<F> = F extends { zone: string } ? Omit<F, 'zone'> & ({ target: string; zone?: undefined } | { /** @deprecated name it `target` */ zone: string; target?: undefined }) : F;
type FaultInput = FileFaultInput<z.input<typeof faultSchema>>;

/** A fault as scenario files and `simulate()` give it, parsed to the simulator's fault. */
export const fileFaultSchema = z.discriminatedUnion('kind', OPTIONS.map(fileForm) as unknown as [FaultOption, ...FaultOption[]]) as unknown as z.ZodType<Fault, FaultInput>;

/** A simulator fault as a file names it: a struck zone is `target`, in the place `zone` had. */
export function faultForFile(fault: Fault): Record<string, unknown> {
  if (!ZONE_KINDS.has(fault.kind)) return fault;
  return Object.fromEntries(Object.entries(fault).map(([key, value]) => [key === 'zone' ? 'target' : key, value]));
}

/** A note for each fault of a file that names its struck zone by the deprecated `zone`. */
export function deprecatedFaultFields(input: unknown): string[] {
  const faults = (input as { faults?: unknown } | null)?.faults;
  if (!Array.isArray(faults)) return [];
  return faults.flatMap((f: unknown, i) => {
    const fault = f as { kind?: unknown; zone?: unknown; target?: unknown } | null;
    return fault !== null && typeof fault === 'object' && ZONE_KINDS.has(String(fault.kind)) && fault.zone !== undefined && fault.target === undefined
      ? [`faults[${i}].zone is deprecated: name the zone a fault strikes \`target\` (as a history's fault line does)`]
      : [];
  });
}

/** JSON Schema override: a zone kind's file form requires `target`. */
export function requireFaultTarget(ctx: { zodSchema: unknown; jsonSchema: { properties?: Record<string, unknown>; required?: string[] } }): void {
  if (!FILE_FORMS.has(ctx.zodSchema as object)) return;
  const required = new Set([...(ctx.jsonSchema.required ?? []), 'target']);
  ctx.jsonSchema.required = Object.keys(ctx.jsonSchema.properties ?? {}).filter((k) => required.has(k));
}
