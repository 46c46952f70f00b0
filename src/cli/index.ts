#!/usr/bin/env node
import { run } from './main.js';

// The `roster` bin: everything lives in run(), so tests drive the same code in-process.
process.exitCode = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});
