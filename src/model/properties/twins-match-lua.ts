import { property } from './judging.js';

export const twinsMatchLua = property({
  name: 'twinsMatchLua',
  label: 'twins match Lua',
  means: "the simulator's JavaScript twin of every script gives the reply and the effects its Lua gives on Redis (every other verdict of a simulation rests on it; a recorded history cannot break it)",
  exercisedWhen: "a simulation compared its scripts' twins with their Lua (scripts: compare)",
  kinds: {
    // The simulation ran code that is not what Redis runs: every other verdict of the run is in doubt.
    'twin-differs': { label: "a script's twin differs from its Lua", rank: 9, why: 'the simulation ran other code than Redis runs, so every other verdict of that run is in doubt (simulations only).' },
  },
  brokenInSimulationsBy: "**a script's twin differs from its Lua**: in compare mode (`scripts: \"compare\"`) a script's JavaScript twin gave another reply or left its keys otherwise than its Lua, which is what Redis runs; the run stops there. Every other verdict of a simulation on the twins rests on this property, so `explore` and `simulate()` always require it; a recorded history cannot break it (`judge` reports it not exercised)",
});
