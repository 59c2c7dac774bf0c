// Runs the real `upness` CLI in a child process, as a user would.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export const UPNESS = join(__dirname, '..', '..', 'backend', 'bin', 'upness.js');

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function upness(args: string[], input?: string): Run {
  const result = spawnSync(process.execPath, [UPNESS, ...args], { input, encoding: 'utf8', maxBuffer: 1 << 30 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
