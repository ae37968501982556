import { randomUUID } from 'node:crypto';
import { NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { aggregateRef, LOG_STREAM } from '@runledger/event-log';
import { decodeReply, encodeJson } from '@runledger/messaging';
import { TestStack } from './support/stack';

jest.setTimeout(240_000);

/**
 * Issue 9, the bus is the perimeter: every bypass the issue lists, tried as the identity an attacker would hold,
 * against the configuration `npm start` runs (the same table, the same renderer), and refused by the server.
 */
describe('Issue 9 authorization: every identity is held to the permissions table', () => {
  let stack: TestStack;
  const conns = new Map<string, NatsConnection>();
  /** One connection per identity, reused: permission errors leave a connection open. */
  const as = async (identity: string): Promise<NatsConnection> => {
    let nc = conns.get(identity);
    if (!nc) {
      nc = await stack.connectAs(identity);
      conns.set(identity, nc);
    }
    return nc;
  };
  const REFUSED = /Permissions Violation/;

  /** A request the server refuses to route: the client's request rejects with the server's violation. */
  const requestAs = async (identity: string, subject: string, body: unknown = {}): Promise<void> => {
    await (await as(identity)).request(subject, typeof body === 'string' ? body : encodeJson(body), { timeout: 10_000 });
  };
  /** A subscription the server refuses: it is closed with a permissions violation instead of receiving anything. */
  const subscribeAs = async (identity: string, subject: string): Promise<unknown> => {
    const sub = (await as(identity)).subscribe(subject);
    return sub.closed;
  };
  /** An event appended to the log as `identity`: the JetStream publish the server must refuse. */
  const appendAs = async (identity: string, subject: string, type: string, data: unknown): Promise<void> => {
    const envelope = { type, data, metadata: { event_id: randomUUID(), schema_version: 1, producer: identity, recorded_at: new Date().toISOString() } };
    await jetstream(await as(identity)).publish(subject, encodeJson(envelope), { timeout: 10_000 });
  };
  const logHasSubject = async (subject: string): Promise<boolean> => {
    const jsm = await jetstreamManager(stack.nc);
    return jsm.streams.getMessage(LOG_STREAM, { last_by_subj: subject }).then((m) => Boolean(m), () => false);
  };

  beforeAll(async () => {
    stack = await TestStack.shared();
  }, 600_000);
  afterAll(async () => {
    for (const nc of conns.values()) await nc.close().catch(() => undefined);
    await stack?.stop();
  });

  it('Issue 9 bypass: an anonymous client connects → refused', async () => {
    await expect(stack.connectAs(null)).rejects.toThrow(/Authorization Violation/);
  });

  it('Issue 9 positive path: the caller\'s agent request is answered on its own inbox, and the operator reads the run', async () => {
    const caller = await as('caller');
    const msg = await caller.request('agents.task-assistant.process', encodeJson({ user_id: 'u-authz', conversation_id: randomUUID(), message: 'add task check the locks' }), { timeout: 60_000 });
    const reply = decodeReply(msg.data, msg.headers);
    if (!reply.ok) throw new Error(`agent request failed: ${reply.error.code}`);
    const runId = (reply.body as { run_id: string }).run_id;
    const asked = await (await as('operator')).request('rl.runs.get', encodeJson({ run_id: runId }), { timeout: 30_000 });
    const got = decodeReply(asked.data, asked.headers);
    if (!got.ok) throw new Error(`rl.runs.get failed: ${got.error.code}`);
    expect(JSON.stringify(got.body)).toContain(runId);
  });

  describe('caller (other services sending agent requests)', () => {
    it('Issue 8 approvals: caller answers a campaign\'s pending approval (agents.campaign.answer is for operators) → refused', async () => {
      await expect(requestAs('caller', 'agents.campaign.answer', { campaign_id: 'c-1', item_id: 'i-1', decision: 'approved', approver: { id: 'mallory', role: 'CAMPAIGN_OPERATOR' } })).rejects.toThrow(REFUSED);
    });
    it('Issue 9 bypass: caller subscribes to rl.log.> to read every user\'s events → refused', async () => {
      expect(String(await subscribeAs('caller', 'rl.log.>'))).toMatch(REFUSED);
    });
    it('Issue 9 bypass: caller subscribes to _INBOX.> to read other identities\' replies → refused', async () => {
      expect(String(await subscribeAs('caller', '_INBOX.>'))).toMatch(REFUSED);
    });
    it('Issue 9 bypass: caller subscribes to another identity\'s inbox (_INBOX_db-write.>, _INBOX_operator.>) → refused', async () => {
      expect(String(await subscribeAs('caller', '_INBOX_db-write.>'))).toMatch(REFUSED);
      expect(String(await subscribeAs('caller', '_INBOX_operator.>'))).toMatch(REFUSED);
    });
    it.each(['rl.db.read', 'rl.db.write', 'rl.tool.invoke', 'rl.artifacts.get', 'rl.artifacts.put', 'rl.runs.get', 'rl.runs.resolve', 'rl.audit.verify'])(
      'Issue 9 bypass: caller calls the internal subject %s directly → refused',
      async (subject) => {
        await expect(requestAs('caller', subject, { governance: { user_id: 'someone-else' } })).rejects.toThrow(REFUSED);
      },
    );
    it('Issue 9 bypass: caller forges a completed run on rl.log.run.* → refused, and rl.runs.get knows no such run', async () => {
      const runId = randomUUID();
      await expect(appendAs('caller', `rl.log.run.${runId}`, 'RunCompleted', { result: 'forged' })).rejects.toThrow(REFUSED);
      expect(await logHasSubject(`rl.log.run.${runId}`)).toBe(false);
      expect(await stack.runEvents(runId)).toEqual([]);
    });
    it('Issue 9 bypass: caller appends a forged audit-chain entry on rl.log.audit.chain → refused', async () => {
      await expect(appendAs('caller', 'rl.log.audit.chain', 'AuditChainEntry', { forged: true })).rejects.toThrow(REFUSED);
      const chain = await stack.log.read(aggregateRef('audit', 'chain'));
      expect(chain.some((e) => (e.data as { forged?: boolean }).forged)).toBe(false);
    });
    it('Issue 9 bypass: caller writes the KV task store directly ($KV.rl_doc_tasks.*) → refused', async () => {
      await expect(requestAs('caller', '$KV.rl_doc_tasks.forged-task', { description: 'forged', owner_id: 'u-victim' })).rejects.toThrow(REFUSED);
    });
    it('Issue 9 bypass: caller creates a stream on agents.task-assistant.process to capture every request → refused', async () => {
      await expect(requestAs('caller', '$JS.API.STREAM.CREATE.CAPTURE', { name: 'CAPTURE', subjects: ['agents.task-assistant.process'] })).rejects.toThrow(REFUSED);
      await expect((await jetstreamManager(stack.nc)).streams.info('CAPTURE')).rejects.toThrow(/not found/);
    });
    it('Issue 9 bypass: caller shrinks the log by changing its max_age → refused, the log keeps no limits', async () => {
      const jsm = await jetstreamManager(stack.nc);
      const { config } = await jsm.streams.info(LOG_STREAM);
      await expect(requestAs('caller', `$JS.API.STREAM.UPDATE.${LOG_STREAM}`, { ...config, max_age: 1_000_000_000 })).rejects.toThrow(REFUSED);
      expect((await jsm.streams.info(LOG_STREAM)).config.max_age).toBe(0);
    });
  });

  describe('operator (reads and verifies, changes nothing)', () => {
    it('Issue 9 bypass: operator deletes the audit-ledger\'s durable consumer (chaining would stop) → refused, the consumer stays', async () => {
      await expect(requestAs('operator', `$JS.API.CONSUMER.DELETE.${LOG_STREAM}.audit-ledger`)).rejects.toThrow(REFUSED);
      const info = await (await jetstreamManager(stack.nc)).consumers.info(LOG_STREAM, 'audit-ledger');
      expect(info.name).toBe('audit-ledger');
    });
    it('Issue 9 bypass: operator pulls requests from decision\'s inbox consumer → refused', async () => {
      await expect(requestAs('operator', `$JS.API.CONSUMER.MSG.NEXT.${LOG_STREAM}.decision-inbox`, { batch: 1, no_wait: true })).rejects.toThrow(REFUSED);
    });
    it('Issue 9 bypass: operator acks a message of decision\'s inbox consumer → refused', async () => {
      await expect(requestAs('operator', `$JS.ACK.${LOG_STREAM}.decision-inbox.1.1.1.1.0`, '+ACK')).rejects.toThrow(REFUSED);
    });
    it('Issue 9 bypass: operator re-creates decision\'s inbox consumer with another configuration → refused', async () => {
      await expect(requestAs('operator', `$JS.API.CONSUMER.CREATE.${LOG_STREAM}.decision-inbox.rl.log.inbox.decision`, { stream_name: LOG_STREAM, config: { durable_name: 'decision-inbox', filter_subject: 'rl.log.inbox.decision', ack_policy: 'none' } })).rejects.toThrow(REFUSED);
    });
    it('Issue 9 bypass: operator appends to the log (a forged run) → refused', async () => {
      await expect(appendAs('operator', `rl.log.run.${randomUUID()}`, 'RunCompleted', {})).rejects.toThrow(REFUSED);
    });
  });

  describe('audit-ledger-consumer (Issue 22: pulls and acks the ledger\'s durable, nothing else, no response permission)', () => {
    it('Issue 22 positive path: the ledger chains through its ack-all durable, pulled and acked as audit-ledger-consumer (audit-ledger itself may not)', async () => {
      const jsm = await jetstreamManager(stack.nc);
      expect((await jsm.consumers.info(LOG_STREAM, 'audit-ledger')).config.ack_policy).toBe('all');
      await stack.waitFor(async () => {
        const info = await jsm.consumers.info(LOG_STREAM, 'audit-ledger');
        return info.num_pending === 0 && info.num_ack_pending === 0 && info.ack_floor.stream_seq > 0;
      }, 60_000);
      await expect(requestAs('audit-ledger', `$JS.API.CONSUMER.MSG.NEXT.${LOG_STREAM}.audit-ledger`, { batch: 1, no_wait: true })).rejects.toThrow(REFUSED);
      await expect(requestAs('audit-ledger', `$JS.ACK.${LOG_STREAM}.audit-ledger.1.1.1.1.0`, '+ACK')).rejects.toThrow(REFUSED);
    });
    it('Issue 22 bypass: audit-ledger-consumer appends to the log (a forged run, a forged chain entry) → refused', async () => {
      await expect(appendAs('audit-ledger-consumer', `rl.log.run.decision.${randomUUID()}`, 'RunCompleted', { result: 'forged' })).rejects.toThrow(REFUSED);
      await expect(appendAs('audit-ledger-consumer', 'rl.log.audit.chain', 'AuditChainEntry', { forged: true })).rejects.toThrow(REFUSED);
    });
    it('Issue 22 bypass: audit-ledger-consumer serves a request subject (rl.audit.query, rl.runs.list) or calls one (rl.audit.verify, agents.task-assistant.process) → refused', async () => {
      expect(String(await subscribeAs('audit-ledger-consumer', 'rl.audit.query'))).toMatch(REFUSED);
      expect(String(await subscribeAs('audit-ledger-consumer', 'rl.runs.list'))).toMatch(REFUSED);
      await expect(requestAs('audit-ledger-consumer', 'rl.audit.verify', {})).rejects.toThrow(REFUSED);
      await expect(requestAs('audit-ledger-consumer', 'agents.task-assistant.process', {})).rejects.toThrow(REFUSED);
      // No response permission: it cannot answer into another identity's inbox.
      await expect(requestAs('audit-ledger-consumer', '_INBOX_operator.forged', {})).rejects.toThrow(REFUSED);
    });
    it('Issue 22 bypass: audit-ledger-consumer creates a consumer (its own durable re-created, a new durable, an ephemeral one) or reads consumer info → refused', async () => {
      const config = { durable_name: 'audit-ledger', filter_subject: 'rl.log.run.>', ack_policy: 'all', deliver_subject: '_INBOX_audit-ledger-consumer.stolen' };
      await expect(requestAs('audit-ledger-consumer', `$JS.API.CONSUMER.CREATE.${LOG_STREAM}.audit-ledger.rl.log.run.>`, { stream_name: LOG_STREAM, config })).rejects.toThrow(REFUSED);
      await expect(requestAs('audit-ledger-consumer', `$JS.API.CONSUMER.DURABLE.CREATE.${LOG_STREAM}.mine`, { stream_name: LOG_STREAM, config: { durable_name: 'mine', ack_policy: 'explicit' } })).rejects.toThrow(REFUSED);
      await expect(requestAs('audit-ledger-consumer', `$JS.API.CONSUMER.CREATE.${LOG_STREAM}`, { stream_name: LOG_STREAM, config: { ack_policy: 'none' } })).rejects.toThrow(REFUSED);
      await expect(requestAs('audit-ledger-consumer', `$JS.API.CONSUMER.INFO.${LOG_STREAM}.audit-ledger`, {})).rejects.toThrow(REFUSED);
    });
    it('Issue 22 bypass: audit-ledger-consumer pulls or acks another durable (decision-inbox), reads the log or a KV bucket → refused', async () => {
      await expect(requestAs('audit-ledger-consumer', `$JS.API.CONSUMER.MSG.NEXT.${LOG_STREAM}.decision-inbox`, { batch: 1, no_wait: true })).rejects.toThrow(REFUSED);
      await expect(requestAs('audit-ledger-consumer', `$JS.ACK.${LOG_STREAM}.decision-inbox.1.1.1.1.0`, '+ACK')).rejects.toThrow(REFUSED);
      await expect(requestAs('audit-ledger-consumer', `$JS.API.DIRECT.GET.${LOG_STREAM}`, { seq: 1 })).rejects.toThrow(REFUSED);
      await expect(requestAs('audit-ledger-consumer', '$KV.rl_doc_audit_events.forged', { forged: true })).rejects.toThrow(REFUSED);
      expect(String(await subscribeAs('audit-ledger-consumer', 'rl.live.run.*.*'))).toMatch(REFUSED);
    });
  });

  describe('services (each appends only to the subjects it owns)', () => {
    it.each([
      ['tool-gateway', 'rl.log.audit.chain', 'a forged audit-chain entry'],
      ['decision', 'rl.log.audit.chain', 'a forged audit-chain entry'],
      ['db-write', 'rl.log.audit.keys', 'a forged audit signing key'],
      ['intent-classification', `rl.log.run.${randomUUID()}`, 'a run event'],
      ['db-write', `rl.log.conversation.${randomUUID()}`, 'a conversation event'],
      ['export', `rl.log.campaign.${randomUUID()}`, 'a campaign event'],
      ['promotion', 'rl.log.inbox.decision', 'a command into decision\'s inbox'],
    ])('Issue 9 bypass: %s publishes on %s (%s), a subject it does not own → refused', async (service, subject) => {
      await expect(appendAs(service, subject, 'Forged', { forged: true })).rejects.toThrow(REFUSED);
    });
    it('Issue 9 bypass: a service creates a stream over another service\'s request subject → refused', async () => {
      await expect(requestAs('db-write', '$JS.API.STREAM.CREATE.CAPTURE2', { name: 'CAPTURE2', subjects: ['agents.task-assistant.process'] })).rejects.toThrow(REFUSED);
    });
    it('Issue 9 bypass: a service changes the log\'s limits → refused', async () => {
      const { config } = await (await jetstreamManager(stack.nc)).streams.info(LOG_STREAM);
      await expect(requestAs('decision', `$JS.API.STREAM.UPDATE.${LOG_STREAM}`, { ...config, max_age: 1_000_000_000 })).rejects.toThrow(REFUSED);
    });
    it('Issue 9 bypass: a service subscribes to a request subject another service serves (tool-gateway on agents.task-assistant.process) → refused', async () => {
      expect(String(await subscribeAs('tool-gateway', 'agents.task-assistant.process'))).toMatch(REFUSED);
    });
    it('Issue 9 bypass: a service core-subscribes to the log\'s run subjects (it would be handed each appender\'s ack inbox, which its response permission lets it answer with a forged "stored") → refused; the live feed it may follow carries no reply subject', async () => {
      expect(String(await subscribeAs('decision', 'rl.log.run.*'))).toMatch(REFUSED);
      expect(String(await subscribeAs('tool-gateway', 'rl.log.>'))).toMatch(REFUSED);
      // The feed: the server's copy of a stored run event, without the publisher's reply subject.
      const runId = randomUUID();
      const live = (await as('decision')).subscribe(`rl.live.run.decision.${runId}`, { max: 1 });
      await (await as('decision')).flush();
      await jetstream(stack.nc).publish(`rl.log.run.decision.${runId}`, encodeJson({ type: 'Probe', data: {}, metadata: { event_id: randomUUID(), schema_version: 1, producer: 'test', recorded_at: new Date().toISOString() } }));
      for await (const m of live) {
        expect(m.reply ?? '').toBe('');
        expect(m.headers?.get('Nats-Subject')).toBe(`rl.log.run.decision.${runId}`);
      }
    });
    it('Issue 9 bypass: a service publishes on the live feed (a forged "run completed" for a waiter) → refused', async () => {
      await expect(requestAs('tool-gateway', `rl.live.run.decision.${randomUUID()}`, { type: 'RunCompleted' })).rejects.toThrow(REFUSED);
    });
    it('Issue 22 bypass: a service, a caller or an operator announces a data-key write (rl.datakeys.written: only nats-server does) → refused; a service that seals hears the server\'s announcement, headers only, never the key', async () => {
      await expect(requestAs('tool-gateway', 'rl.datakeys.written.user.x', {})).rejects.toThrow(REFUSED);
      await expect(requestAs('audit-ledger', 'rl.datakeys.written.user.x', {})).rejects.toThrow(REFUSED);
      await expect(requestAs('caller', 'rl.datakeys.written.user.x', {})).rejects.toThrow(REFUSED);
      await expect(requestAs('operator', 'rl.datakeys.written.user.x', {})).rejects.toThrow(REFUSED);
      expect(String(await subscribeAs('intent-classification', 'rl.datakeys.written.*.*'))).toMatch(REFUSED);
      expect(String(await subscribeAs('caller', 'rl.datakeys.written.*.*'))).toMatch(REFUSED);
      const owner = `user.${Buffer.from(randomUUID()).toString('base64url')}`;
      const heard = (await as('db-write')).subscribe(`rl.datakeys.written.${owner}`, { max: 1 });
      await (await as('db-write')).flush();
      // A key created in the bucket (as a service's first seal for a new owner creates it).
      await (await as('db-write')).request(`$KV.rl_data_keys.${owner}`, 'a-key-material-probe', { timeout: 5_000 });
      for await (const m of heard) {
        expect({ body: m.data.length, subject: m.headers?.get('Nats-Subject'), reply: m.reply ?? '' }).toEqual({ body: 0, subject: `$KV.rl_data_keys.${owner}`, reply: '' });
      }
    });
    it('Issue 9 bypass: a service pulls another service\'s durable consumer (decision pulls audit-ledger) → refused', async () => {
      await expect(requestAs('decision', `$JS.API.CONSUMER.MSG.NEXT.${LOG_STREAM}.audit-ledger`, { batch: 1, no_wait: true })).rejects.toThrow(REFUSED);
    });
    it.each([
      ['db-write', 'rl_doc_runs_index', 'a forged row in the runs index operators read'],
      ['promotion', 'rl_doc_audit_events', 'a forged audit answer'],
      ['db-write', 'rl_doc_consumer_leases', "the audit ledger's consumer lease (chaining would stall)"],
    ])('Issue 9 least privilege: %s writes %s (%s), a read model only the audit ledger keeps → refused', async (service, bucket) => {
      await expect(requestAs(service, `$KV.${bucket}.forged`, { forged: true })).rejects.toThrow(REFUSED);
    });
    it('Issue 9 bypass: a service calls a choke point it has no business with (promotion → rl.db.write, intent-classification → rl.tool.invoke) → refused', async () => {
      await expect(requestAs('promotion', 'rl.db.write', {})).rejects.toThrow(REFUSED);
      await expect(requestAs('intent-classification', 'rl.tool.invoke', {})).rejects.toThrow(REFUSED);
    });
  });
});
