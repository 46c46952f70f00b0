#!/usr/bin/env node
import { run } from './main.js';
import { relaunchOnSupportedNode } from '../lib/supported-node.js';

// The `roster` bin: everything lives in run(), so tests drive the same code in-process.
process.exitCode =
  relaunchOnSupportedNode() ??
  (await run(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
  }));
