/* eslint-disable @typescript-eslint/no-require-imports */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
// The permissions table (deploy/nats/permissions.yaml) and its renderers: what contracts:check and the k8s
// manifests rest on. The servers' refusals themselves are proven in test/authorization*.e2e.spec.ts.
const permissions = require('../../../scripts/lib/permissions.js');
const natsAuth = require('../../../scripts/lib/nats-auth.js');
const k8s = require('../../../scripts/render-k8s-nats.js');

type Perms = { publish: { allow: string[]; deny: string[] }; subscribe: { allow: string[] }; allow_responses?: boolean };
const table = permissions.loadTable();
const perms = (id: string): Perms => permissions.permissionsFor(table, id);

describe('Issue 9 permissions table', () => {
  it('Issue 9 contracts:check: an asyncapi channel with no line in the table fails, and so does a table subject asyncapi lacks', () => {
    const channels = Object.fromEntries(permissions.tableSubjects(table).map((a: string, i: number) => [`c${i}`, { address: a }]));
    expect(permissions.checkAgainstAsyncApi(table, { channels })).toEqual([]);
    const extra = permissions.checkAgainstAsyncApi(table, { channels: { ...channels, x: { address: 'rl.brand.new' } } });
    expect(extra).toEqual(['asyncapi.yaml channel rl.brand.new has no entry in deploy/nats/permissions.yaml']);
    const { c0: _dropped, ...fewer } = channels;
    expect(permissions.checkAgainstAsyncApi(table, { channels: fewer })).toEqual([`permissions.yaml names ${channels.c0.address}, which no channel of asyncapi.yaml has`]);
  });

  it('Issue 22 data keys: every service that seals or opens may subscribe to the server\'s announcements of key writes exactly as its follower does (it subscribed rl.datakeys.written.>, refused: probe)', () => {
    const { DATA_KEYS_WRITTEN_FILTER } = require('../../messaging/src/data-keys') as { DATA_KEYS_WRITTEN_FILTER: string };
    const followers = [...new Set([...table.data_keys.seal, ...table.data_keys.open])] as string[];
    expect(followers.length).toBeGreaterThan(0);
    for (const id of followers) expect(perms(id).subscribe.allow).toContain(DATA_KEYS_WRITTEN_FILTER);
  });

  it('Issue 22 the ledger\'s durable is pulled and acked by audit-ledger-consumer only: a standing allow on its ack and pull subjects, its own inbox, nothing else, no response permission', () => {
    const consumer = perms('audit-ledger-consumer');
    expect(consumer.publish.allow).toEqual(['$JS.ACK.RUNLEDGER_LOG.audit-ledger.>', '$JS.API.CONSUMER.MSG.NEXT.RUNLEDGER_LOG.audit-ledger']);
    expect(consumer.subscribe.allow).toEqual(['_INBOX_audit-ledger-consumer.>']);
    expect(consumer.allow_responses).toBeUndefined();
    expect(consumer.publish.deny).toEqual(expect.arrayContaining(['$JS.API.CONSUMER.CREATE.>', '$JS.API.CONSUMER.DELETE.>']));
    // The ledger itself serves requests (response permission) and no longer pulls or acks its durable; it may tune it.
    const ledger = perms('audit-ledger');
    expect(ledger.allow_responses).toBe(true);
    expect(ledger.publish.allow.filter((s) => s.includes('audit-ledger') && s.startsWith('$JS'))).toEqual(['$JS.API.CONSUMER.CREATE.RUNLEDGER_LOG.audit-ledger.rl.log.run.>', '$JS.API.CONSUMER.INFO.RUNLEDGER_LOG.audit-ledger']);
    expect(ledger.publish.deny).toEqual(expect.arrayContaining(['$JS.ACK.RUNLEDGER_LOG.audit-ledger.>', '$JS.API.CONSUMER.MSG.NEXT.RUNLEDGER_LOG.audit-ledger']));
    // decision keeps its standing allow: a run in progress heartbeats its delivery.
    expect(perms('decision').publish.allow).toContain('$JS.ACK.RUNLEDGER_LOG.decision-inbox.>');
    expect(natsAuth.identityEnv({ 'audit-ledger': { file: 'l.nk', inboxPrefix: '_INBOX_audit-ledger' }, 'audit-ledger-consumer': { file: 'c.nk', inboxPrefix: '_INBOX_audit-ledger-consumer' } }, 'audit-ledger', table))
      .toEqual({ NATS_CREDS: 'l.nk', NATS_INBOX_PREFIX: '_INBOX_audit-ledger', NATS_CONSUMER_CREDS: 'c.nk', NATS_CONSUMER_INBOX_PREFIX: '_INBOX_audit-ledger-consumer' });
  });

  it('Issue 22 a table that names a durable\'s consumer identity as a caller or server is refused by contracts:check', () => {
    const widened = { ...table, requests: { ...table.requests, 'rl.audit.head': { ...table.requests['rl.audit.head'], call: ['operator', 'audit-ledger-consumer'] } } };
    const channels = Object.fromEntries(permissions.tableSubjects(widened).map((a: string, i: number) => [`c${i}`, { address: a }]));
    expect(permissions.checkAgainstAsyncApi(widened, { channels })).toEqual(['permissions.yaml rl.audit.head: unknown identity audit-ledger-consumer']);
    expect(perms('audit-ledger-consumer').publish.allow).not.toContain('rl.audit.head');
  });

  it('Issue 9 live feed: readers follow runs on rl.live.run.*.* (issue 23: per owner), never by a core subscription on the log\'s own subjects', () => {
    for (const id of table.log.readers) {
      expect(perms(id).subscribe.allow).toContain('rl.live.run.*.*');
      expect(perms(id).subscribe.allow.filter((s: string) => s.startsWith('rl.log'))).toEqual([]);
    }
  });

  it('Issue 23 readers create nothing: no identity may create a consumer but a durable\'s owner, under that durable\'s name and filter only', () => {
    const owned = Object.entries(table.log.durables as Record<string, { owner: string; filter: string }>);
    for (const id of permissions.identities(table)) {
      const creates = perms(id).publish.allow.filter((s) => s.startsWith('$JS.API.CONSUMER.CREATE') || s.startsWith('$JS.API.CONSUMER.DURABLE'));
      expect(creates).toEqual(owned.filter(([, d]) => d.owner === id).map(([name, d]) => `$JS.API.CONSUMER.CREATE.RUNLEDGER_LOG.${name}.${d.filter}`));
      if (!creates.length) expect(perms(id).publish.deny).toContain('$JS.API.CONSUMER.CREATE.>');
    }
  });

  it('Issue 23 owner ends its own runs: no identity may append under another owner\'s run subject (decision included); decision may only ask each owner on rl.runs.control.<owner>, which each serves on its own name', () => {
    const owners = ['decision', 'tool-gateway', 'db-write', 'promotion', 'export'];
    for (const id of permissions.identities(table)) {
      const runAppends = perms(id).publish.allow.filter((s) => s.startsWith('rl.log.run.'));
      expect(runAppends).toEqual(owners.includes(id) ? [`rl.log.run.${id}.*`] : []);
    }
    const controllers = permissions.identities(table).filter((id: string) => perms(id).publish.allow.some((s) => s.startsWith('rl.runs.control.')));
    expect(controllers).toEqual(['decision']);
    for (const owner of owners.filter((o) => o !== 'decision')) expect(perms(owner).subscribe.allow.filter((s: string) => s.startsWith('rl.runs.control.'))).toEqual([`rl.runs.control.${owner}`]);
    expect(perms('decision').subscribe.allow.filter((s: string) => s.startsWith('rl.runs.control.'))).toEqual([]);
  });

  it('Issue 9 inboxes: every identity may subscribe to its own inbox prefix only, never _INBOX.> or another\'s', () => {
    for (const id of permissions.identities(table)) {
      const inboxes = perms(id).subscribe.allow.filter((s) => s.startsWith('_INBOX'));
      expect(inboxes).toEqual([`_INBOX_${id}.>`]);
    }
  });

  it('Issue 9 least privilege: the caller may only send agent requests and use its own door; only audit-ledger appends the audit chain', () => {
    expect(perms('caller').publish.allow.every((s) => s.startsWith('agents.') || s.startsWith('rl.caller.caller.'))).toBe(true);
    const chainWriters = permissions.identities(table).filter((id: string) => perms(id).publish.allow.includes('rl.log.audit.chain'));
    expect(chainWriters).toEqual(['audit-ledger']);
    for (const id of permissions.identities(table)) {
      expect(perms(id).publish.allow.some((s) => s.startsWith('$JS.API.STREAM.CREATE') || s.startsWith('$JS.API.STREAM.UPDATE') || s === '>')).toBe(false);
      expect(perms(id).publish.deny).toEqual(expect.arrayContaining(['$JS.API.STREAM.CREATE.>', '$JS.API.STREAM.UPDATE.>', '$JS.API.CONSUMER.DELETE.>']));
    }
  });

  it('Issue 26 caller door: a caller may publish on rl.caller.<its own name>.… only; the serving service subscribes to every caller\'s', () => {
    const own = perms('caller').publish.allow.filter((s) => s.startsWith('rl.caller.'));
    const campaignOps = ['create', 'cycle', 'get', 'leads.import', 'pause', 'run', 'start'].map((op) => `rl.caller.caller.campaign.${op}`);
    expect(own).toEqual(['rl.caller.caller.artifacts.get', 'rl.caller.caller.artifacts.ingest', ...campaignOps, 'rl.caller.caller.runs.cancel', 'rl.caller.caller.runs.events', 'rl.caller.caller.runs.get', 'rl.caller.caller.runs.start', 'rl.caller.caller.sessions.get', 'rl.caller.caller.sessions.start', 'rl.caller.caller.task-assistant.process']);
    // Campaign answers stay the operator's: no caller door for them.
    expect(own).not.toContain('rl.caller.caller.campaign.answer');
    // §4.5: the approver (policy/callers.yaml attorney-desk) has one door, its ingest: it puts tickets in, nothing else.
    expect(perms('approver').publish.allow).toEqual(['rl.caller.approver.artifacts.ingest']);
    for (const id of permissions.identities(table).filter((i: string) => i !== 'caller' && i !== 'approver')) {
      expect(perms(id).publish.allow.filter((s) => s.startsWith('rl.caller.'))).toEqual([]);
    }
    expect(perms('db-write').subscribe.allow).toEqual(expect.arrayContaining(['rl.caller.*.artifacts.ingest', 'rl.caller.*.artifacts.get']));
    expect(perms('decision').subscribe.allow).toEqual(expect.arrayContaining(['rl.caller.*.runs.get', 'rl.caller.*.runs.events', 'rl.caller.*.runs.cancel', 'rl.caller.*.runs.start', 'rl.caller.*.sessions.start', 'rl.caller.*.sessions.get', 'rl.caller.*.task-assistant.process', 'rl.caller.*.campaign.get']));
  });

  it('Issue 26 runs and sessions start only on a caller\'s own door: no identity may publish on agents.run.start or agents.session.* (a reply inbox names nobody), and nobody serves them', () => {
    const retired = ['agents.run.start', 'agents.session.start', 'agents.session.get'];
    expect(Object.keys(table.requests).filter((s) => retired.includes(s))).toEqual([]);
    for (const id of permissions.identities(table)) {
      const { publish, subscribe } = perms(id);
      expect({ id, publish: publish.allow.filter((s) => /^(agents\.(run|session)\.|agents\.>|agents\.\*|>$)/.test(s)) }).toEqual({ id, publish: [] });
      expect({ id, subscribe: subscribe.allow.filter((s) => /^agents\.(run|session)\./.test(s)) }).toEqual({ id, subscribe: [] });
    }
  });

  it('Issue 26 caller grants: every identity that may use a caller door (where runs and sessions start) has a role in policy/callers.yaml (the starts answer no other identity: REQUEST.UNATTRIBUTED)', () => {
    const grants = YAML.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'policy', 'callers.yaml'), 'utf8')) as { callers: Record<string, string> };
    const callers = Object.entries(table.requests as Record<string, { call?: string[] }>)
      .filter(([address]) => address.includes('{caller}'))
      .flatMap(([, rule]) => rule.call ?? []);
    expect(callers.length).toBeGreaterThan(0);
    for (const id of new Set(callers)) expect(grants.callers[id]).toBeDefined();
  });

  it('Issue 9 k8s: nats.conf, nats-dev.conf and compose.conf carry exactly the permissions the default start renders', () => {
    expect(k8s.checkK8s()).toEqual([]);
    const creds = Object.fromEntries(natsAuth.allIdentities(table).map((id: string) => [id, { publicKey: `U-${id}`, file: '', inboxPrefix: `_INBOX_${id}` }]));
    const local = natsAuth.localServerConfig({ creds, table });
    const cluster = k8s.k8sBlock(table);
    for (const id of permissions.identities(table)) {
      const rendered = natsAuth.render(natsAuth.compact(perms(id)), '        ');
      expect(local).toContain(rendered);
      expect(cluster).toContain(`user: "runledger-${id}"`);
      expect(cluster).toContain(rendered);
    }
  });
});

describe('Issue 25 operator identity from what the bus enforces', () => {
  it('Issue 25 the shipped table lets only operator call the operator subjects (the services take every operator action as operator\'s)', () => {
    expect(permissions.operatorSubjectProblems(table)).toEqual([]);
    for (const s of permissions.OPERATOR_SUBJECTS) expect(table.requests[s].call).toEqual(['operator']);
  });

  it('Issue 25 a table that lets another identity publish an operator subject is refused by the renderer and by contracts:check (its reply inbox could name operator)', () => {
    const widened = { ...table, requests: { ...table.requests, 'rl.runs.resolve': { ...table.requests['rl.runs.resolve'], call: ['operator', 'caller'] } } };
    expect(() => permissions.permissionsFor(widened, 'caller')).toThrow(/rl.runs.resolve: an operator subject may be called by operator only/);
    const channels = Object.fromEntries(permissions.tableSubjects(widened).map((a: string, i: number) => [`c${i}`, { address: a }]));
    expect(permissions.checkAgainstAsyncApi(widened, { channels })).toEqual([expect.stringContaining('rl.runs.resolve: an operator subject may be called by operator only')]);
  });
});
