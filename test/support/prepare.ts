// `node test/support/prepare.ts [kube] [postgres] [render] [browser]`: make the test prerequisites ready by hand (the
// test projects that need them do it themselves before their first test; see prerequisites.ts).
import { prepare, PREREQUISITES, type Prerequisite } from './prerequisites.ts';

const KNOWN: readonly string[] = PREREQUISITES;
const asked = process.argv.slice(2);
const unknown = asked.filter((a) => !KNOWN.includes(a));
if (unknown.length > 0) {
  process.stderr.write(`usage: node test/support/prepare.ts [kube] [postgres] [render] [browser]   (unknown: ${unknown.join(' ')})\n`);
  process.exit(2);
}
prepare((asked.length > 0 ? asked : KNOWN) as Prerequisite[]).catch((error: unknown) => {
  process.stderr.write(`prepare: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
