// A bench command's options: Node's parseArgs, with what a user asks of a command besides. `--help`
// prints the command's own header comment (each bench file opens with its usage), and an unknown or
// malformed option is said in one line with the way to --help, exit code 2, instead of a stack trace.

import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** The leading `//` comment of a source file, without its markers: a bench command's usage. */
export function headerComment(source: string): string {
  const lines: string[] = [];
  for (const line of source.split('\n')) {
    if (!line.startsWith('//')) break;
    lines.push(line.replace(/^\/\/ ?/, ''));
  }
  return lines.join('\n').trimEnd() + '\n';
}

/**
 * parseArgs(config) for the bench command in `file` (its import.meta.filename), or, asked
 * `--help`/`-h`, its usage printed and the process ended; a parse error ends it with the message.
 */
export function benchArgs<T extends ParseArgsConfig>(file: string, config: T): ReturnType<typeof parseArgs<T>> {
  const argv = config.args ?? process.argv.slice(2);
  const ownArgs = argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length);
  if (ownArgs.includes('--help') || ownArgs.includes('-h')) {
    process.stdout.write(headerComment(readFileSync(file, 'utf8')));
    process.exit(0);
  }
  try {
    return parseArgs(config);
  } catch (error) {
    process.stderr.write(`${basename(file)}: ${(error as Error).message}\nRun it with --help for its options.\n`);
    process.exit(2);
  }
}
