// Roster as benchmarked (servers/roster.mjs), with V8's CPU profiler started and stopped over IPC:
// 'start' begins sampling, 'stop' writes the profile to PROFILE_FILE and answers 'stopped'.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

const session = new Session();
session.connect();
await session.post('Profiler.enable');
// 100 µs between samples: a request takes a few hundred µs of CPU.
await session.post('Profiler.setSamplingInterval', { interval: 100 });
process.on('message', (message) => {
  const reply = (answer) => process.send?.(answer);
  if (message === 'start') void session.post('Profiler.start').then(() => reply('started'));
  if (message === 'stop') {
    void session.post('Profiler.stop').then(({ profile }) => {
      writeFileSync(process.env.PROFILE_FILE, JSON.stringify(profile));
      reply('stopped');
    });
  }
});
await import('./roster.mjs');
