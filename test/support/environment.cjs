// The Node test environment of the backend's test projects, plus one duty: when a test file ends
// (after every afterAll hook, also after one that timed out), kill the servers it left running and
// refuse any that a still-pending promise tries to start later. See processes.ts.
const { TestEnvironment } = require('jest-environment-node');

const KEY = '__upnessOwnedProcesses';

class OwnedProcessesEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
  }

  async teardown() {
    const owned = this.global[KEY];
    if (owned) {
      owned.closedBecause = `the test file ${this.testPath} has ended`;
      const killed = owned.killAll();
      if (killed.length > 0) {
        process.stderr.write(`${this.testPath}: killed ${killed.length} process(es) it left running:\n  ${killed.join('\n  ')}\n`);
      }
    }
    await super.teardown();
  }
}

module.exports = OwnedProcessesEnvironment;
