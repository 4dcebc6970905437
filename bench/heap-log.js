'use strict';
/**
 * A heap log for any process of the benchmarks, loaded with `--require`, e.g.
 *
 *   BENCH_WORKER_NODE_ARGS="--require ./bench/heap-log.js" npm run bench:fanout
 *   BENCH_BARE_NODE_ARGS="--require ./bench/heap-log.js" npm run bench:fanout
 *
 * Every 250 ms it writes the process's RSS and each V8 space's used / committed size, and a
 * line per garbage collection (its kind and pause), to `heap-<pid>.log` in the OS temporary
 * folder (the path is printed on stderr): where a fan-out's memory goes, space by space.
 */
const { openSync, writeSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { PerformanceObserver, constants } = require('node:perf_hooks');
const v8 = require('node:v8');

const path = join(tmpdir(), `heap-${process.pid}.log`);
const file = openSync(path, 'w');
const startedAt = Date.now();
const mb = (bytes) => (bytes / 1e6).toFixed(1);
const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak-callbacks',
};

process.stderr.write(`heap log: ${path}\n`);
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = KINDS[entry.detail?.kind] ?? 'other';
    writeSync(file, `${Date.now() - startedAt} gc ${kind} ${entry.duration.toFixed(1)} ms\n`);
  }
}).observe({ entryTypes: ['gc'] });

setInterval(() => {
  const spaces = v8
    .getHeapSpaceStatistics()
    .filter((space) => space.space_size > 0)
    .map((space) => `${space.space_name} ${mb(space.space_used_size)}/${mb(space.space_size)}`);
  const rss = mb(process.memoryUsage.rss());
  writeSync(file, `${Date.now() - startedAt} rss ${rss} ${spaces.join(' ')}\n`);
}, 250).unref();
