// The e2e project's global teardown (jest.config.js): stops the shared stack, if a suite started one, and fails the
// run when any suite's log held an event its proto-contracts schema does not admit (issue 26), listing them per suite
// (written by TestStack.stop through test/support/log-contract-check.ts).
const fs = require('node:fs');
const path = require('node:path');

/** Signals a process and waits until it is gone, SIGKILL after `graceMs`; a process already gone is done. */
async function stopPid(pid, graceMs) {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const signal = (s) => {
    try {
      process.kill(pid, s);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  for (const deadline = Date.now() + graceMs; alive() && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 50));
  if (alive()) signal('SIGKILL');
}

/** The services first (each drains as it does on SIGTERM), then their server, then its store. */
async function stopSharedStack(dir) {
  const file = path.join(dir, 'stack.json');
  if (fs.existsSync(file)) {
    const { nats, services } = JSON.parse(fs.readFileSync(file, 'utf8'));
    await Promise.all(Object.values(services).map((pid) => stopPid(pid, 3_000)));
    await stopPid(nats.pid, 5_000);
    fs.rmSync(nats.storeDir, { recursive: true, force: true });
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

module.exports = async function teardown() {
  if (process.env.RL_SHARED_STACK_DIR) await stopSharedStack(process.env.RL_SHARED_STACK_DIR);
  const dir = process.env.RL_LOG_CONTRACTS_DIR;
  if (!dir || !fs.existsSync(dir)) return;
  const reports = fs.readdirSync(dir).sort().map((f) => fs.readFileSync(path.join(dir, f), 'utf8').trim()).filter(Boolean);
  fs.rmSync(dir, { recursive: true, force: true });
  if (reports.length) {
    throw new Error(`Issue 26: events in the suites' logs that their proto-contracts schema does not admit (proto-contracts/event-types.json):\n\n${reports.join('\n\n')}`);
  }
};
