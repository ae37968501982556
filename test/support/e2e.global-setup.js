// The e2e project's global setup (jest.config.js): a directory where each stack leaves the problems its log check
// found (issue 26, test/support/log-contract-check.ts), and one where the shared stack leaves its descriptor
// (TestStack.shared, test/support/stack.ts). The global teardown reads both.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

module.exports = async function setup() {
  // Workers start after global setup and inherit its environment; --runInBand runs in this process.
  process.env.RL_LOG_CONTRACTS_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'runledger-log-contracts-'));
  process.env.RL_SHARED_STACK_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'runledger-shared-stack-'));
};
