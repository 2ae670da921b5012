// Builds dist/ for the package: type-checks and emits declarations with tsc, bundles the JavaScript
// with esbuild (one file per entry point plus shared chunks, zod inlined so it is not a runtime
// dependency) and the declarations with rollup-plugin-dts (zod's types inlined the same way).
// Few files instead of ~400: most of an unbundled dist/ was 4 KB disk blocks.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { build } from 'esbuild';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';

/** Entry points: the package's four exports, the CLI, and the worker threads of the simulation pool and of `dynoq judge` (each loaded by URL beside its chunk). */
const ENTRIES = {
  dynoq: 'public/dynoq',
  sim: 'public/sim',
  model: 'public/model',
  testing: 'public/testing',
  cli: 'cli/main',
  'pool-worker': 'sim/campaign/pool-worker',
  'judge-thread': 'cli/judge-thread',
};
/** Runtime dependencies and the optional peer stay imports; everything else (zod included) is bundled. */
const EXTERNAL = ['ioredis', 'lua-redis-wasm', 'seedrandom', 'commander', 'fast-check'];
const TYPES = 'build/types';

rmSync('dist', { recursive: true, force: true });
rmSync(TYPES, { recursive: true, force: true });
execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--emitDeclarationOnly', '--outDir', TYPES], { stdio: 'inherit' });

await build({
  entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([out, src]) => [out, `src/${src}.ts`])),
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunk-[hash]',
  external: EXTERNAL,
  logLevel: 'warning',
});

const isExternal = (id) => id.startsWith('node:') || builtinModules.includes(id) || EXTERNAL.some((e) => id === e || id.startsWith(`${e}/`));
const types = await rollup({
  input: Object.fromEntries(['dynoq', 'sim', 'model', 'testing'].map((out) => [out, `${TYPES}/${ENTRIES[out]}.d.ts`])),
  external: isExternal,
  plugins: [dts({ respectExternal: true })],
});
await types.write({ dir: 'dist', format: 'es', chunkFileNames: 'types-[hash].d.ts' });
rmSync('build', { recursive: true, force: true });
