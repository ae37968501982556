#!/usr/bin/env node
/**
 * runledger <command> …  — operator and user commands against a running stack (NATS_URL, default the local stack at nats://127.0.0.1:4322).
 * `runledger <command> --help` prints that command's usage, with the values its options take.
 *   chat  --user <id> [--conversation <uuid>]   talk to the task assistant (as the caller)
 *   audit verify [--anchor w.json | --file chain.jsonl]  verify the audit hash chain (live, against a witness, or an exported copy)
 *   audit anchor export [--out w.json]         a witness copy of the signed head and the log's identity, kept outside the cluster
 *   audit export [--out chain.jsonl]           export the audit chain (to stdout without --out)
 *   audit head [--out head.json]               the signed checkpoint of the chain's head, with its public key
 *   audit coverage                             runs missing an authz decision, an outcome or an effect audit event
 *   erase --user ID | --case ID                destroy a user's or a case's data key (sealed data then reads as erased)
 *   agent --config <file> --prompt "<text>"      run one agent session (contract 002) and print its final report
 *   agent --agent <profile-id> --prompt "<text>" [--request-id ID]  the same, run by the decision service over the bus (as the caller)
 *   runs list|show|tail|cancel|fork …          find, inspect, follow, cancel and fork runs
 *   deadletters list|show|retry …              poison messages, one with its payload, and their retry
 *   approvals list|answer …                    campaign items waiting for a person, and the decision on one
 *   console [--port N]                         the operator console in a browser (loopback, signed in by a printed URL)
 *   replay [--policy DIR]                      rebuild every read model and compare; or a what-if under another policy
 * Exit codes: 0 done; 1 the stack refused the request (its stable error code is printed) or a check failed (a chain
 * that does not verify, a replay with differences); 2 usage, said before connecting (an unknown command or option, a
 * missing or malformed value, a malformed server URL, a --since not before its --until, options that do not go
 * together, a file to read that does not exist or is no input of its kind, an --out that cannot be written, a --creds
 * file or --context that does not exist); 3 the stack cannot be reached, refused
 * the credentials or does not permit this identity the command; agent keeps its contract's codes (4 invalid arguments or an unknown
 * agent, 5 a schema that does not compile).
 * On the local stack each command connects as the identity `npm start` wrote for it (.data/credentials): chat and
 * agent --agent as caller, erase and replay as admin, the others as operator; --creds names another.
 * Each command lives in scripts/cli/<command>.ts and is loaded through scripts/lib/ts-register.js so it can use the libs.
 */
const { headerUsage, wantsHelp } = require('./lib/usage');

const [command, ...args] = process.argv.slice(2);
/** The usage, naming the local stack's port as this shell sets it (RL_NATS_PORT, as `npm start` and the commands read it). */
const localUsage = () => headerUsage(__filename).replace('nats://127.0.0.1:4322', `nats://127.0.0.1:${process.env.RL_NATS_PORT || 4322}`);
const commands = { chat: './cli/chat', audit: './cli/audit', agent: './cli/agent', runs: './cli/runs', deadletters: './cli/deadletters', replay: './cli/replay', erase: './cli/erase', console: './cli/console', approvals: './cli/approvals' };
// Exit only once stdout is flushed: a pipe (`runs list --json | jq`) would otherwise get a cut-off document.
const exitAfterFlush = (code) => process.stdout.write('', () => process.exit(code));
if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
  // Help asked for is an answer (stdout, 0); no command at all is a usage error (stderr, 2).
  if (command === undefined) {
    process.stderr.write(localUsage());
    process.exit(2);
  }
  process.stdout.write(localUsage());
  exitAfterFlush(0);
  return;
}
if (!commands[command]) {
  process.stderr.write(`unknown command '${command}'\n\n${localUsage()}`);
  process.exit(2);
}
require('./lib/ts-register');
const cli = require(commands[command]);
// `--help` anywhere after the command: that command's usage (every subcommand's, with the values options take), exit 0.
if (wantsHelp(args) && cli.USAGE) {
  process.stdout.write(`${cli.USAGE.trimEnd()}\n`);
  exitAfterFlush(0);
  return;
}
cli.main(args).then(
  (code) => exitAfterFlush(code ?? 0),
  (err) => {
    // An error with a stable code (the log's DEPENDENCY.DOWN, …) is named by it, as a refused request is.
    const code = err && typeof err.code === 'string' && /^[A-Z][A-Z_]*\.[A-Z_.]+$/.test(err.code) ? `${err.code} ` : '';
    process.stderr.write(`runledger ${command}: ${code}${err && err.message ? err.message : err}\n`);
    process.exit(1);
  },
);
