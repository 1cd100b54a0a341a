// Preloaded into a bench child by bench:node-flags: the process's cumulative garbage-collection time
// (PerformanceObserver 'gc' entries, ms) written to BENCH_GC_FILE every 100 ms, so the bench reads it
// before and after a measured run without a signal (SIGWINCH is the CPU profiler's).
const { PerformanceObserver } = require('node:perf_hooks');
const { writeFileSync } = require('node:fs');

const file = process.env.BENCH_GC_FILE;
let ms = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    ms += entry.duration;
  }
}).observe({ entryTypes: ['gc'] });
setInterval(() => writeFileSync(file, JSON.stringify({ ms })), 100).unref();
