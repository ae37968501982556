// Issue 26: fails the e2e run when any suite's log held an event its proto-contracts schema does not admit, listing
// them per suite (written by TestStack.stop through test/support/log-contract-check.ts).
const fs = require('node:fs');
const path = require('node:path');

module.exports = async function teardown() {
  const dir = process.env.RL_LOG_CONTRACTS_DIR;
  if (!dir || !fs.existsSync(dir)) return;
  const reports = fs.readdirSync(dir).sort().map((f) => fs.readFileSync(path.join(dir, f), 'utf8').trim()).filter(Boolean);
  fs.rmSync(dir, { recursive: true, force: true });
  if (reports.length) {
    throw new Error(`Issue 26: events in the suites' logs that their proto-contracts schema does not admit (proto-contracts/event-types.json):\n\n${reports.join('\n\n')}`);
  }
};
