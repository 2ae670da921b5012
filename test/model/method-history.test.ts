import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { callOperations } from '../../src/model/call-operations.js';
import { METHOD_HISTORY } from '../../src/model/method-history.js';

const root = resolve(import.meta.dirname, '../..');
const DYNO_QUEUE = join(root, 'src/queue/dyno-queue.ts');
/** The two readers of the table: the user's recorder and the simulator's drivers. */
const READERS = ['src/testing/recorder.ts', 'src/sim/workloads/context.ts'].map((f) => join(root, f));

/**
 * Type-checks the readers with the project's compiler settings, DynoQueue's text replaced by
 * `edit` of it; the errors, by file (relative to the repository).
 */
function typeErrors(edit: (dynoQueue: string) => string, oldProgram?: ts.Program): { errors: Map<string, string[]>; program: ts.Program } {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), (f) => ts.sys.readFile(f));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const host = ts.createCompilerHost(options);
  const edited = edit(readFileSync(DYNO_QUEUE, 'utf8'));
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, ...rest) =>
    resolve(file) === DYNO_QUEUE ? ts.createSourceFile(file, edited, language) : getSourceFile(file, language, ...rest);
  host.readFile = (file) => (resolve(file) === DYNO_QUEUE ? edited : ts.sys.readFile(file));
  const program = ts.createProgram({ rootNames: READERS, options: { ...options, noEmit: true }, host, ...(oldProgram ? { oldProgram } : {}) });
  const errors = new Map<string, string[]>();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file ? d.file.fileName.slice(root.length + 1) : '(global)';
    errors.set(file, [...(errors.get(file) ?? []), ts.flattenDiagnosticMessageText(d.messageText, '\n')]);
  }
  return { errors, program };
}

const addMethod = (text: string, method: string) => {
  const start = text.indexOf('export interface DynoQueue {');
  expect(start).toBeGreaterThanOrEqual(0);
  const at = text.indexOf('\n', start) + 1;
  return `${text.slice(0, at)}  ${method}\n${text.slice(at)}`;
};

describe('the method → history table is checked by the compiler against the queue interface', () => {
  it('a public method without an entry, or an entry that no longer fits its method, fails to compile in both readers', () => {
    const unchanged = typeErrors((t) => t);
    expect([...unchanged.errors.entries()]).toEqual([]);

    const grown = typeErrors((t) => addMethod(t, 'requeueAll(): Promise<number>;'), unchanged.program);
    for (const reader of READERS.map((f) => f.slice(root.length + 1))) expect(grown.errors.get(reader)?.join('\n'), reader).toMatch(/Property 'requeueAll' is missing/);

    // ack now answers a number where its entry reads a boolean reply
    const changed = typeErrors((t) => t.replace('ack(id: string, token?: string): Promise<boolean>;', 'ack(id: string, token?: string): Promise<number>;'), unchanged.program);
    for (const reader of READERS.map((f) => f.slice(root.length + 1))) expect(changed.errors.get(reader)?.join('\n'), reader).toMatch(/Types of property 'ack' are incompatible/);
  }, 180_000);
});

describe('what a call becomes in the history', () => {
  const site = { invokedAt: 100, leaseMs: 1_000, localShard: 'a' };
  const times = { process: 'c', invokedAt: 100, completedAt: 105 };

  it('every recorded method has parts from its arguments; ackManyAndPop is its acks then a scheduled pop with its deliveries', () => {
    const entry = METHOD_HISTORY.ackManyAndPop;
    const items = [{ id: 'x', token: 't' }, { id: '' }, { id: 'y' }];
    const parts = entry.parts([items, 2], site);
    expect(parts).toEqual([{ type: 'ack', ids: ['x', 'y'] }, { type: 'pop', via: 'schedule', shard: 'a' }]);
    const reply = entry.reply({ acked: [true, true, false], messages: [{ id: 'z', shard: 'b' }] }, [items, 2], site);
    const { ops, outcome } = callOperations(times, parts, reply.outcome, reply.result);
    expect(outcome).toBe('ok');
    expect(ops.map((o) => [o.type, 'id' in o ? o.id : undefined, o.outcome])).toEqual([
      ['ack', 'x', 'ok'],
      ['ack', 'y', 'fail'],
      ['deliver', 'z', 'ok'],
      ['pop', undefined, 'ok'],
    ]);
    expect(ops[2]).toMatchObject({ leaseUntil: 1_100, via: 'schedule', shard: 'b' });
  });

  it('a call that threw is its parts with the throw\'s outcome; a pop that returned nothing keeps the call\'s outcome', () => {
    const parts = METHOD_HISTORY.push.parts([[{ id: 'm', timeout: 5, priority: 120 }]]);
    const { ops } = callOperations(times, [...parts, ...METHOD_HISTORY.pop.parts([1], site)], 'unknown', {}, { shardOf: () => 'b' });
    expect(ops).toEqual([
      { type: 'push', ...times, outcome: 'unknown', id: 'm', delayMs: 5, priority: 0, shard: 'b' },
      { type: 'pop', ...times, outcome: 'unknown', via: 'schedule', shard: 'a', delivered: 0 },
    ]);
  });

  it('the methods the history does not record say why, and consume is recorded as its pops', () => {
    const entries = Object.entries(METHOD_HISTORY);
    expect(entries.filter(([, e]) => e.records === 'nothing' && !('why' in e && e.why.length > 0))).toEqual([]);
    expect(METHOD_HISTORY.consume).toEqual({ records: 'steps', stepsAs: 'pop', leftAs: 'release' });
    expect(METHOD_HISTORY[METHOD_HISTORY.consume.stepsAs].records).toBe('call');
  });
});

describe("a pop's reply in the history", () => {
  const site = { invokedAt: 1_000, leaseMs: 500, localShard: 'a' };
  const m = { id: 'm1', shard: 'a' };
  it('is ok with its deliveries and the ids it kept back (leases to nobody); unknown when it came back with a store error', () => {
    expect(METHOD_HISTORY.pop.reply(Object.assign([m], {}) as never, [1] as never, site)).toMatchObject({ outcome: 'ok', result: { delivered: [{ id: 'm1', leaseUntil: 1_500 }] } });
    expect(METHOD_HISTORY.pop.reply(Object.assign([m], { keptBack: ['m2'] }) as never, [1] as never, site)).toEqual({
      outcome: 'ok',
      result: { delivered: [{ id: 'm1', shard: 'a', leaseUntil: 1_500 }], keptBack: { ids: ['m2'], leaseMs: 500 } },
    });
    expect(METHOD_HISTORY.pop.reply(Object.assign([], { keptBack: ['m2', 'm3'] }) as never, [1] as never, site).outcome).toBe('ok');
    expect(METHOD_HISTORY.pop.reply(Object.assign([m], { error: new Error('reset') }) as never, [1] as never, site).outcome).toBe('unknown');
  });
  it('a kept-back id becomes a kept-back operation (leased to nobody until the return + lease), the pop line counting only what it returned', () => {
    const reply = METHOD_HISTORY.pop.reply(Object.assign([m], { keptBack: ['m2'] }) as never, [1] as never, site);
    const { ops } = callOperations({ process: 'c', invokedAt: 1_000, completedAt: 1_700 }, METHOD_HISTORY.pop.parts([1] as never, site), reply.outcome, reply.result);
    expect(ops).toEqual([
      { type: 'deliver', process: 'c', id: 'm1', invokedAt: 1_000, completedAt: 1_700, outcome: 'ok', leaseUntil: 1_500, via: 'schedule', shard: 'a' },
      { type: 'kept-back', process: 'c', id: 'm2', invokedAt: 1_000, completedAt: 1_700, outcome: 'ok', leaseUntil: 2_200, shard: 'a' },
      { type: 'pop', process: 'c', invokedAt: 1_000, completedAt: 1_700, outcome: 'ok', via: 'schedule', shard: 'a', delivered: 1 },
    ]);
  });
});
