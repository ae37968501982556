#!/usr/bin/env node
/**
 * runledger <command> …  — operator and user commands against a running stack (NATS_URL, default the local stack at nats://127.0.0.1:4322).
 *   chat  --user <id> [--conversation <uuid>]   talk to the task assistant
 *   audit verify [--anchor w.json | --file chain.jsonl]  verify the audit hash chain (live, against a witness, or an exported copy)
 *   audit anchor export [--out w.json]         a witness copy of the signed head and the log's identity, kept outside the cluster
 *   erase --user ID | --case ID                destroy a user's or a case's data key (sealed data then reads as erased)
 *   audit export > chain.jsonl                 export the audit chain
 *   agent --config <file> --prompt "<text>"      run one agent session (contract 002) and print its final report
 *   agent --agent <profile-id> --prompt "<text>" the same, run by the decision service over the bus
 *   runs list|show|tail|cancel …               find, inspect, follow and cancel runs
 *   deadletters list|retry …                   poison messages and their retry
 *   replay [--policy DIR]                      rebuild every read model and compare; or a what-if under another policy
 * Each command lives in scripts/cli/<command>.js and is loaded through @swc-node/register so it can use the libs.
 */
const path = require('node:path');
process.env.SWC_NODE_PROJECT ??= path.join(__dirname, '..', 'tsconfig.json');
require('@swc-node/register');

const [command, ...args] = process.argv.slice(2);
const commands = { chat: './cli/chat', audit: './cli/audit', agent: './cli/agent', runs: './cli/runs', deadletters: './cli/deadletters', replay: './cli/replay', erase: './cli/erase' };
if (!command || !commands[command]) {
  process.stderr.write(`usage: runledger <${Object.keys(commands).join('|')}> …\n`);
  process.exit(4);
}
// Exit only once stdout is flushed: a pipe (`runs list --json | jq`) would otherwise get a cut-off document.
const exitAfterFlush = (code) => process.stdout.write('', () => process.exit(code));
require(commands[command]).main(args).then(
  (code) => exitAfterFlush(code ?? 0),
  (err) => {
    process.stderr.write(`runledger ${command}: ${err && err.message ? err.message : err}\n`);
    process.exit(1);
  },
);
