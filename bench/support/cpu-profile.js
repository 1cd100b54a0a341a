// Preloaded into bench children when BENCH_PROFILE=1 (SIGWINCH: Nest's shutdown hooks own SIGUSR2). The first SIGWINCH starts a V8 CPU profile, the
// second writes it to bench/results/profile.tmp/<pid>.cpuprofile, so a profile covers one measured run.
const { Session } = require('node:inspector');
const { mkdirSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const session = new Session();
session.connect();
let running = false;
process.on('SIGWINCH', () => {
  if (!running) {
    running = true;
    // BENCH_PROFILE_INTERVAL_US: a finer sampling interval than V8's default (1 ms) for short runs
    const interval = Number(process.env.BENCH_PROFILE_INTERVAL_US) || undefined;
    session.post('Profiler.enable', () =>
      session.post('Profiler.setSamplingInterval', { interval }, () => session.post('Profiler.start')),
    );
    return;
  }
  running = false;
  session.post('Profiler.stop', (err, { profile }) => {
    const dir = path.resolve(__dirname, '..', 'results', 'profile.tmp');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${process.pid}.cpuprofile`), JSON.stringify(profile));
  });
});
