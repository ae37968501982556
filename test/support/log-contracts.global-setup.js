// Issue 26: the e2e project's global setup gives the run a directory where each stack leaves the problems its log
// check found (test/support/log-contract-check.ts); the global teardown fails the run listing them.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

module.exports = async function setup() {
  // Workers start after global setup and inherit its environment; --runInBand runs in this process.
  process.env.RL_LOG_CONTRACTS_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'runledger-log-contracts-'));
};
