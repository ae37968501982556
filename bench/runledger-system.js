/**
 * Runledger as a system in the side-by-side benchmark: the seven services as processes on the bench's
 * nats-server, driven through the public request subject. A request counts only when it is answered AND the
 * audit ledger has chained its events ("sustained"): `settle()` waits until the ledger's durable consumer has
 * nothing pending, so a burst that leaves the chain behind is not counted as throughput.
 */
const { randomUUID } = require('node:crypto');
const path = require('node:path');
const { decodeReply } = require('../libs/messaging/src/codec');
const { LOG_STREAM } = require('../libs/event-log/src');
const { runBootstrap, startService, stopProcess, SERVICES } = require('../scripts/lib/stack');

const AUDIT_DURABLE = 'audit-ledger';

async function startRunledger({ nats, nc, jsm }) {
  await runBootstrap({ natsUrl: nats.url, creds: nats.creds });
  // The ledger's key and anchor beside this bench's store: in the shared .data folder, the anchor of the bench's log
  // would make the next `npm start` log read as replaced (the anchor is kept per stream name, issue 23).
  const env = { LOG_LEVEL: 'error', RL_AUDIT_KEY_FILE: path.join(nats.storeDir, '..', 'audit', 'signing-key.pem') };
  const procs = SERVICES.map((name) => startService(name, { natsUrl: nats.url, creds: nats.creds, env }));
  await Promise.all(procs.map((p) => p.ready));
  const encoder = new TextEncoder();
  const system = {
    procs,
    async run(req) {
      const body = { user_id: req.user_id, conversation_id: randomUUID(), request_id: req.request_id, message: req.message };
      const msg = await nc.request('agents.task-assistant.process', encoder.encode(JSON.stringify(body)), { timeout: 60_000 });
      const reply = decodeReply(msg.data, msg.headers);
      if (!reply.ok) throw new Error(`runledger: ${reply.error.code} ${reply.error.message}`);
      if (reply.body.decision_type !== 'INVOKE_TOOL') throw new Error(`runledger: expected INVOKE_TOOL, got ${reply.body.decision_type}`);
    },
    /** Resolves once the audit chain has caught up with everything appended so far. */
    async settle() {
      for (;;) {
        const info = await jsm.consumers.info(LOG_STREAM, AUDIT_DURABLE);
        if (info.num_pending === 0 && info.num_ack_pending === 0) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async logMessages() {
      return (await jsm.streams.info(LOG_STREAM)).state.messages;
    },
    pids: () => [...procs.map((p) => p.child.pid), nats.child.pid],
    processNames: () => [...procs.map((p) => p.name), 'nats-server'],
    async stop() {
      await Promise.all(procs.map((p) => stopProcess(p.child)));
    },
  };
  return system;
}

module.exports = { startRunledger };
