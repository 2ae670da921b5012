/**
 * Plants one deliberate bug at a time, runs the suites, and records which caught it and how fast
 * (npx tsx scripts/plant-bugs.ts > docs/PLANTED-BUGS.md). Every bug is a text replacement that must
 * apply; the file is restored afterwards whatever happens.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

interface Bug {
  readonly id: string;
  readonly area: string;
  readonly what: string;
  readonly edits: readonly { file: string; from: string; to: string }[];
}

const twinAndLua = (file: string, pairs: [string, string][]) => pairs.map(([from, to]) => ({ file, from, to }));

const BUGS: Bug[] = [
  {
    id: 'B1',
    area: 'push',
    what: 'atomic push ignores the delay (every message due at once)',
    edits: [{ file: 'src/queue/atomic-queue.ts', from: 'String(m.priority), String(m.timeout),', to: "String(m.priority), '0'," }],
  },
  {
    id: 'B2',
    area: 'pop / script',
    what: 'rank built with the priority reversed (99 − p) in the push script, Lua and twin',
    edits: twinAndLua('src/queue/scripts/atomic-push.ts', [
      ["local rank = priority .. string.format('%013d', seq)", "local rank = (99 - tonumber(priority)) .. string.format('%013d', seq)"],
      ["const rank = priority + String(seq).padStart(13, '0');", "const rank = String(99 - Number(priority)) + String(seq).padStart(13, '0');"],
    ]),
  },
  {
    id: 'B3',
    area: 'ack / lease',
    what: 'atomic ack drops the lease token (a stale consumer can ack)',
    edits: [{ file: 'src/queue/scripts/queue-scripts.ts', from: 'this.allUnacks()], [id, token]);', to: "this.allUnacks()], [id, '']);" }],
  },
  {
    id: 'B4',
    area: 'reaper / script',
    what: 're-queue script takes back every lease, expired or not',
    edits: twinAndLua('src/queue/scripts/atomic-requeue-expired.ts', [
      ["redis.call('zrangebyscore', unack, '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))", "redis.call('zrangebyscore', unack, '-inf', '+inf', 'LIMIT', 0, tonumber(ARGV[3]))"],
      ["redis.call('zrangebyscore', unack, '-inf', String(now), 'LIMIT', '0', argv[2]!)", "redis.call('zrangebyscore', unack, '-inf', '+inf', 'LIMIT', '0', argv[2]!)"],
    ]),
  },
  {
    id: 'B5',
    area: 'lease',
    what: 'atomic pop leases for 0 ms instead of unackTimeout',
    edits: [{ file: 'src/queue/scripts/queue-scripts.ts', from: 'String(count), String(unackTimeout)]);', to: "String(count), '0']);" }],
  },
  {
    id: 'B6',
    area: 'pop (legacy)',
    what: "legacy claim ignores ZADD NX's answer (two consumers can claim one id)",
    edits: [{ file: 'src/queue/legacy-queue.ts', from: '      if (added === 0) continue;\n      const removed', to: '      void added;\n      const removed' }],
  },
  {
    id: 'B7',
    area: 'reaper (legacy)',
    what: 'legacy processUnacks drops live messages and re-queues payload-less ones',
    edits: [{ file: 'src/queue/legacy-queue.ts', from: 'if ((await this.quorum.hget(this.keys.message, member)) === null) {', to: 'if ((await this.quorum.hget(this.keys.message, member)) !== null) {' }],
  },
  {
    id: 'B8',
    area: 'remove / script',
    what: 'atomic remove keeps the payload hash entry (Lua and twin)',
    edits: twinAndLua('src/queue/scripts/atomic-remove.ts', [
      ["redis.call('hdel', KEYS[1], id)\n", ''],
      ["    redis.call('hdel', keys[0]!, id);\n", ''],
    ]),
  },
  {
    id: 'B9',
    area: 'push (legacy)',
    what: 'legacy push scores priority as a whole second (priority * 10 instead of / 100)',
    edits: [{ file: 'src/queue/legacy-queue.ts', from: 'm.timeout + m.priority / 100;', to: 'm.timeout + m.priority * 10;' }],
  },
  {
    id: 'B10',
    area: 'pop / priority',
    what: 'atomic pops ignore priority: the push script ranks by push order only (Lua and twin)',
    edits: twinAndLua('src/queue/scripts/atomic-push.ts', [
      ["local rank = priority .. string.rep('0', 13 - #ord) .. ord", "local rank = '0' .. string.rep('0', 13 - #ord) .. ord"],
      ["const rank = priority + ord.padStart(13, '0');", "const rank = '0' + ord.padStart(13, '0');"],
    ]),
  },
  {
    id: 'B11',
    area: 'pop / promotion',
    what: 'atomic pop promotes only messages due more than 2 s ago (delays, never loses; Lua and twin)',
    edits: twinAndLua('src/queue/scripts/atomic-pop.ts', [
      ['now - tonumber(ARGV[6]), tonumber(ARGV[3])', 'now - tonumber(ARGV[6]) - 2000, tonumber(ARGV[3])'],
      ['now - Number(argv[5]), Number(argv[2])', 'now - Number(argv[5]) - 2000, Number(argv[2])'],
    ]),
  },
  {
    id: 'B12',
    area: 'reschedule / script',
    what: 'atomic setTimeout writes the new due time as now − delay (early; Lua and twin)',
    edits: twinAndLua('src/queue/scripts/atomic-reschedule.ts', [
      ["redis.call('zadd', queue, now + tonumber(ARGV[4]), id)", "redis.call('zadd', queue, now - tonumber(ARGV[4]), id)"],
      ['formatRedisDouble(now + Number(argv[3]))', 'formatRedisDouble(now - Number(argv[3]))'],
    ]),
  },
];

const SUITES = [
  'test/queue-behaviour.test.ts',
  'properties/model-based.test.ts',
  'properties/interleavings.test.ts',
  'properties/simulation.test.ts',
  'properties/workloads.test.ts',
  'test/sim/faults.test.ts',
  'test/scenarios.test.ts',
  'test/conformance/differential.test.ts',
];

interface FileResult {
  name: string;
  status: string;
  startTime: number;
  endTime: number;
  assertionResults: { status: string; fullName: string; duration?: number }[];
}

const root = join(import.meta.dirname, '..');
const rows: string[] = [];
const only = process.argv.slice(2);
for (const bug of BUGS.filter((b) => only.length === 0 || only.includes(b.id))) {
  const originals = new Map<string, string>();
  try {
    for (const e of bug.edits) {
      const path = join(root, e.file);
      const text = originals.get(path) ?? readFileSync(path, 'utf8');
      if (!originals.has(path)) originals.set(path, text);
      const current = readFileSync(path, 'utf8');
      if (!current.includes(e.from)) throw new Error(`${bug.id}: edit does not apply to ${e.file}: ${e.from}`);
      writeFileSync(path, current.replace(e.from, e.to));
    }
    const out = join(root, `.plant-${bug.id}.json`);
    const started = Date.now();
    spawnSync('npx', ['vitest', 'run', ...SUITES, '--reporter=json', `--outputFile=${out}`], { cwd: root, stdio: 'ignore', env: { ...process.env } });
    const wall = (Date.now() - started) / 1000;
    const results = JSON.parse(readFileSync(out, 'utf8')) as { testResults: FileResult[] };
    rmSync(out, { force: true });
    const caught = results.testResults
      .filter((f) => f.status === 'failed')
      .map((f) => {
        const failed = f.assertionResults.filter((a) => a.status === 'failed');
        return `${f.name.replace(`${root}/`, '')} (${failed.length} test${failed.length === 1 ? '' : 's'}, ${((f.endTime - f.startTime) / 1000).toFixed(1)} s)`;
      });
    rows.push(`| ${bug.id} | ${bug.area} | ${bug.what} | ${caught.length > 0 ? caught.join('<br>') : '**not caught**'} | ${wall.toFixed(0)} s |`);
    process.stderr.write(`${bug.id}: ${caught.length} suite(s) caught it\n`);
  } finally {
    for (const [path, text] of originals) writeFileSync(path, text);
  }
}

console.log(`# Planted bugs: which suite catches what

Generated by \`npx tsx scripts/plant-bugs.ts\`: each bug is planted alone, the suites below run once
(\`${SUITES.join('`, `')}\`), and the table lists every suite file that failed, how many of its tests
failed, and the file's own run time. The suites were not written against these bugs; they check the
properties (model agreement, checker verdicts, recorded scenario outcomes, Lua/twin agreement).

| bug | area | what was planted | caught by | whole run |
|---|---|---|---|---|
${rows.join('\n')}

The mutation-testing record (Stryker over \`src/queue\` and \`src/model\`) is in [MUTATION.md](MUTATION.md).
`);
