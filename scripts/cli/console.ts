/**
 * runledger console — the operator console in a browser, served by this process on loopback and acting as the NATS
 * identity it connected with (the operator's: on the local stack .data/credentials/operator.nk).
 *
 *   console [--port N] [--approver ID] [--role ROLE]
 *
 * Prints one URL with this launch's secret token; opening it signs the browser in (an HttpOnly cookie) and every
 * other request without that cookie is answered 401 with no data. Ctrl-C stops it.
 */
import { approverFrom } from './approvals';
import { CONNECTION_USAGE } from './connection';
import { ConsoleApi } from './console/api';
import { startConsoleServer } from './console/server';
import { CliError, intFlag, parseArgs, runCommand, str, withConnection } from './operator';

/** The console's fixed port unless --port says otherwise (0: any free port). */
export const CONSOLE_PORT = 4380;

export const USAGE = `usage: runledger console [--port N] [--approver ID] [--role ROLE]
       ${CONNECTION_USAGE}
  Serves the operator console on http://127.0.0.1:N (default ${CONSOLE_PORT}; 0 picks a free port), loopback only, as the
  NATS identity it connects with (the operator's by default). It prints one URL with a secret token made for this
  launch: open it to sign in; anyone without it gets 401 and nothing else.
  --approver ID  who approves, rejects or answers campaign items (recorded with the decision; default $USER)
  --role ROLE    the approver's role, checked against the campaign's pinned roles policy (default CAMPAIGN_OPERATOR)
exit codes: 0 stopped (Ctrl-C), 2 usage, 3 the stack cannot be reached or the port is taken`;

export function main(args: string[]): Promise<number> {
  return runCommand(async () => {
    const p = parseArgs(args, { valued: ['port', 'approver', 'role'], switches: [] }, USAGE);
    if (p.positional.length) throw new CliError(`console takes no arguments\n${USAGE}`, 2);
    const port = intFlag(p, 'port', USAGE, 0) ?? CONSOLE_PORT;
    if (port > 65_535) throw new CliError(`--port must be at most 65535\n${USAGE}`, 2);
    const approver = approverFrom(str(p, 'approver'), str(p, 'role'), USAGE);
    return withConnection(p.conn, async (nc) => {
      const console = await startConsoleServer(new ConsoleApi(nc, approver), port).catch((err: NodeJS.ErrnoException) => {
        throw new CliError(err.code === 'EADDRINUSE' ? `port ${port} is taken on 127.0.0.1; pass --port N (0: any free port)` : `cannot listen on 127.0.0.1:${port}: ${err.message}`, 3);
      });
      process.stdout.write(`runledger console: open ${console.url}\n(the token in this URL signs a browser in; keep it to yourself. Ctrl-C stops the console)\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
        nc.closed().then(() => resolve(), () => resolve());
      });
      await console.close();
      return 0;
    });
  });
}
