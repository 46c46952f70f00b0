// Process figures from Linux's /proc: CPU time, peak RSS, a PostgreSQL cluster's CPU.
import { readFileSync, readdirSync } from 'node:fs';
import pg from 'pg';

/** [utime + stime, ppid, cutime + cstime] of a process (or `pid/task/tid`), CPU in ms (Linux ticks are 10 ms). */
function procStat(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = (a, b) => (Number(fields[a]) + Number(fields[b])) * 10;
  return [ticks(11, 12), Number(fields[1]), ticks(13, 14)];
}

/** CPU time (user + system) a process has used so far, in ms. */
export const cpuMs = (pid) => procStat(pid)[0];

/** CPU time of a process's main thread (JavaScript's), in ms. */
export const mainThreadCpuMs = (pid) => procStat(`${pid}/task/${pid}`)[0];

export function peakRssMb(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
  return line ? Number(line[1]) / 1024 : NaN;
}

/** CPU of a PostgreSQL cluster so far: the postmaster, its live children and the children it has reaped. */
export function clusterCpuMs(postmaster) {
  const [own, , reaped] = procStat(postmaster);
  let total = own + reaped;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const [cpu, ppid] = procStat(entry);
      if (ppid === postmaster) total += cpu;
    } catch {
      // The process ended while we looked: its time is in the postmaster's reaped children now.
    }
  }
  return total;
}

/** The postmaster of the cluster at databaseUrl: the parent of a backend (it must run on this machine). */
export async function postmasterPid(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT pg_backend_pid() AS pid');
    return procStat(rows[0].pid)[1]; // read while the backend lives
  } finally {
    await client.end();
  }
}
