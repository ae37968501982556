/**
 * The permissions table (deploy/nats/permissions.yaml) expanded into each identity's NATS permissions, and the
 * check that the table and proto-contracts/asyncapi.yaml name the same subjects. Plain CommonJS: `npm start`,
 * the contract check, the test harness and the k8s renderer all use it without a compile step.
 */
const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');

const ROOT = path.resolve(__dirname, '..', '..');
const TABLE_FILE = path.join(ROOT, 'deploy', 'nats', 'permissions.yaml');
/** The bootstrap identity: the only one that creates or changes streams, buckets and consumers (the declared durables too). */
const ADMIN = 'admin';

function loadTable(file = TABLE_FILE) {
  return YAML.parse(fs.readFileSync(file, 'utf8'));
}

/** `rl.log.run.{run_id}` → `rl.log.run.*` */
const toWildcard = (address) => address.replace(/\{[^}]+\}/g, '*');
const inboxPrefix = (identity) => `_INBOX_${identity}`;
/** The token of a request address that stands for the calling identity itself (rl.caller.{caller}.…). */
const CALLER_TOKEN = '{caller}';

/**
 * The operator subjects: each action on them is checked against policy/operators.yaml as `operator`'s
 * (libs/policy-catalog OPERATOR_IDENTITY). A request's reply inbox is the sender's to name and proves nothing; what
 * the bus enforces is who may publish, so these may be published by `operator` only (and the admin, who has every
 * right): a table that lets another identity publish one is refused (operatorSubjectProblems).
 */
const OPERATOR_IDENTITY = 'operator';
const OPERATOR_SUBJECTS = ['rl.runs.cancel', 'rl.runs.fork', 'rl.runs.resolve', 'rl.deadletters.retry', 'agents.campaign.answer'];

function operatorSubjectProblems(table) {
  return OPERATOR_SUBJECTS.filter((s) => table.requests?.[s]).flatMap((s) => {
    const call = table.requests[s].call ?? [];
    return call.length === 1 && call[0] === OPERATOR_IDENTITY ? [] : [`permissions.yaml ${s}: an operator subject may be called by ${OPERATOR_IDENTITY} only (operator actions are taken as ${OPERATOR_IDENTITY}'s; called by ${call.join(', ') || 'nobody'})`];
  });
}

/** Every identity of the table (services, clients, then the durables' consumer identities), without the implicit admin. */
function identities(table) {
  return [...table.services, ...Object.keys(table.clients), ...consumerIdentities(table)];
}

/** The identities that only pull and ack a durable (log.durables `consumer`). */
function consumerIdentities(table) {
  return Object.values(table.log.durables).flatMap((d) => (d.consumer ? [d.consumer] : []));
}

/** The durable `identity` pulls and acks as its consumer identity, if it is one. */
function consumedDurable(table, identity) {
  return Object.entries(table.log.durables).find(([, d]) => d.consumer === identity)?.[0];
}

/** The consumer identity of the durable `service` owns, if that durable has one: the service's second connection. */
function consumerIdentityOf(table, service) {
  return Object.values(table.log.durables).find((d) => d.owner === service && d.consumer)?.consumer;
}

/** What only the admin may do: said explicitly in every identity's deny list, whatever its allows grow into. */
const ADMIN_ONLY = ['$JS.API.STREAM.CREATE.>', '$JS.API.STREAM.UPDATE.>', '$JS.API.STREAM.DELETE.>', '$JS.API.STREAM.PURGE.>',
  '$JS.API.STREAM.MSG.DELETE.>', '$JS.API.CONSUMER.DELETE.>', '$JS.API.CONSUMER.DURABLE.CREATE.>'];

/**
 * A durable's consumer identity (log.durables `consumer`): it may pull from that durable and ack its deliveries (a
 * standing allow), and receive on its own inbox; nothing else. No response permission: nats-server then keeps no
 * reply subject of a delivery for its connection, so a batch is settled by one ack (see permissions.yaml).
 */
function consumerPermissions(table, identity, durable) {
  const stream = table.log.stream;
  return {
    publish: { allow: [`$JS.ACK.${stream}.${durable}.>`, `$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`].sort(), deny: ['$JS.API.CONSUMER.CREATE.>', ...ADMIN_ONLY].sort() },
    subscribe: { allow: [`${inboxPrefix(identity)}.>`], deny: [] },
  };
}

/** The KV bucket of every collection of the embedded document store. */
function kvBuckets(table) {
  return table.kv.collections.map((c) => `${table.kv.prefix}${c}`);
}

/** What the bootstrap creates (libs/messaging provisionBus): buckets, object stores and the log's durable consumers. */
function busLayout(table) {
  return { kvBuckets: kvBuckets(table), objectStores: Object.keys(table.object_stores), durables: table.log.durables };
}

/**
 * Publish allows that let an identity read a stream and change nothing: its info, direct gets and message gets.
 * No consumer: the body of a consumer-create request, not its subject, says whether it is durable or pushes and where
 * (nats-server 2.9/2.10), so a reader allowed to create one could keep state on the server or deliver the stream
 * into any subject (another identity's inbox, a service's request subject). Readers read by direct gets
 * (libs/event-log direct-reads.ts); only the bootstrap creates consumers, the declared durables included.
 */
function streamReadApi(stream) {
  return [
    `$JS.API.STREAM.INFO.${stream}`,
    `$JS.API.DIRECT.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}.>`,
    `$JS.API.STREAM.MSG.GET.${stream}`,
  ];
}

/** `rl.log.run.{owner}.{run_id}` as `identity`'s own: its name for the first `{param}`, the rest wildcards. */
const ownName = (address, identity) => toWildcard(address.replace(/\{[^}]+\}/, identity));

/**
 * The log subjects of one table entry an identity may append on. `append: self` with `owners`: each owner only under its
 * own name (the first `{param}` of the address), and nobody else under it, so the subject says who wrote it.
 */
function logAppendSubjects(address, rule, identity) {
  if (rule.append === 'self') return (rule.owners ?? []).includes(identity) ? [ownName(address, identity)] : [];
  return (rule.append ?? []).includes(identity) ? [toWildcard(address)] : [];
}

/** Who may append on a log subject entry: its appenders, or its owners. */
function logAppenders(rule) {
  return rule.append === 'self' ? (rule.owners ?? []) : (rule.append ?? []);
}

/** Whether `identity` serves a request entry: named, or `self` (every service, or only the entry's `owners`) under its own name. */
function servesRequest(table, rule, identity) {
  if (rule.serve !== 'self') return rule.serve === identity;
  return table.services.includes(identity) && (!rule.owners || rule.owners.includes(identity));
}

/**
 * One identity's permissions: `{ publish: {allow, deny}, subscribe: {allow, deny}, allow_responses }`.
 * Everything not allowed is refused; the deny lists keep the wildcard allows off other identities' consumers.
 */
function permissionsFor(table, identity) {
  if (identity === ADMIN) return null; // full rights within the account
  if (!identities(table).includes(identity)) throw new Error(`unknown identity "${identity}" (not in ${path.relative(ROOT, TABLE_FILE)})`);
  const refused = operatorSubjectProblems(table);
  if (refused.length) throw new Error(refused.join('; '));
  const consumed = consumedDurable(table, identity);
  if (consumed) return consumerPermissions(table, identity, consumed);
  const stream = table.log.stream;
  const pub = new Set();
  const sub = new Set([`${inboxPrefix(identity)}.>`]);
  let serves = false;
  for (const [address, rule] of Object.entries(table.requests)) {
    if (servesRequest(table, rule, identity)) {
      sub.add(rule.serve === 'self' ? ownName(address, identity) : toWildcard(address));
      serves = true;
    }
    // `{caller}`: the caller's own name, so the subject a request comes on says who sent it (permissions.yaml).
    if ((rule.call ?? []).includes(identity)) pub.add(toWildcard(address.replace(CALLER_TOKEN, identity)));
  }
  for (const [address, rule] of Object.entries(table.log.subjects)) {
    for (const subject of logAppendSubjects(address, rule, identity)) pub.add(subject);
  }
  const usesJetStream = table.services.includes(identity) || table.log.readers.includes(identity);
  if (usesJetStream) {
    pub.add('$JS.API.INFO');
    // Every service checks at start-up that the log is still immutable and unlimited.
    pub.add(`$JS.API.STREAM.INFO.${stream}`);
  }
  if (table.log.readers.includes(identity)) {
    streamReadApi(stream).forEach((s) => pub.add(s));
    // Following a run live: the log's republished copies of stored run events (LIVE_RUN_PREFIX), never a core
    // subscription to the log's own subjects: that would hand a responder each appender's acknowledgement inbox,
    // which its response permission would let it answer (a forged "stored" for an append the log refused).
    sub.add(toWildcard(table.log.live));
  }
  const deny = new Set();
  let ownsDurable = false;
  for (const [durable, d] of Object.entries(table.log.durables)) {
    if (d.owner === identity) {
      ownsDurable = true;
      // The bootstrap creates it (a pull consumer with this filter); the owner may tune it, only under its name and
      // filter (both in the subject). nats-server refuses to turn an existing pull consumer into a push one.
      pub.add(`$JS.API.CONSUMER.CREATE.${stream}.${durable}.${d.filter}`);
      pub.add(`$JS.API.CONSUMER.INFO.${stream}.${durable}`);
      if (d.consumer) {
        // Pulled and acked by its consumer identity only, on the owner's second connection (see the table).
        deny.add(`$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`);
        deny.add(`$JS.ACK.${stream}.${durable}.>`);
      } else {
        pub.add(`$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`);
        pub.add(`$JS.ACK.${stream}.${durable}.>`);
      }
    } else {
      // `lag_readers`: may read the durable's info (its lag: the console's dashboards), nothing else of it.
      if ((table.log.lag_readers ?? []).includes(identity)) pub.add(`$JS.API.CONSUMER.INFO.${stream}.${durable}`);
      deny.add(`$JS.API.CONSUMER.CREATE.${stream}.${durable}.>`);
      deny.add(`$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`);
      deny.add(`$JS.ACK.${stream}.${durable}.>`);
    }
  }
  // Everyone else creates no consumer on any stream (see streamReadApi), said explicitly.
  if (!ownsDurable) deny.add('$JS.API.CONSUMER.CREATE.>');
  if (table.kv.users.includes(identity)) {
    // NATS wildcards match whole tokens only: each bucket is named (kv.collections, one line each).
    const owners = table.kv.owners ?? {};
    for (const collection of table.kv.collections) {
      if (owners[collection] && !owners[collection].includes(identity)) continue;
      const bucket = `${table.kv.prefix}${collection}`;
      pub.add(`$KV.${bucket}.>`);
      streamReadApi(`KV_${bucket}`).forEach((s) => pub.add(s));
    }
  }
  const keys = table.data_keys;
  if (keys && [...keys.seal, ...keys.open].includes(identity)) {
    // Reading a key is a direct get; so is the follower that drops destroyed keys (libs/messaging data-keys.ts).
    streamReadApi(`KV_${keys.bucket}`).forEach((s) => pub.add(s));
    if (keys.seal.includes(identity)) pub.add(`$KV.${keys.bucket}.>`);
    // The server's announcement of each write to the bucket: a cue to read it at once (only the server publishes it).
    if (keys.written) sub.add(toWildcard(keys.written));
  }
  for (const [store, users] of Object.entries(table.object_stores)) {
    if (!users.includes(identity)) continue;
    pub.add(`$O.${store}.>`);
    streamReadApi(`OBJ_${store}`).forEach((s) => pub.add(s));
  }
  if (usesJetStream) pub.add('$JS.FC.>');
  // Only the admin changes the shape of the log and the stores: said explicitly, whatever the allows above grow into.
  for (const s of ADMIN_ONLY) deny.add(s);
  return {
    publish: { allow: [...pub].sort(), deny: [...deny].sort() },
    subscribe: { allow: [...sub].sort(), deny: [] },
    ...(serves ? { allow_responses: true } : {}),
  };
}

/** Subjects of the table that must be asyncapi channel addresses, and the other way round. */
/** Every subject address the table names: each must be an asyncapi channel (checkAgainstAsyncApi). */
function tableSubjects(table) {
  return [...Object.keys(table.requests), ...Object.keys(table.log.subjects), table.log.live, ...(table.data_keys?.written ? [table.data_keys.written] : [])];
}

function checkAgainstAsyncApi(table, asyncapiDoc) {
  const named = new Set(tableSubjects(table));
  const channels = new Set(Object.values(asyncapiDoc.channels ?? {}).map((c) => c.address));
  const problems = [...operatorSubjectProblems(table)];
  for (const s of named) if (!channels.has(s)) problems.push(`permissions.yaml names ${s}, which no channel of asyncapi.yaml has`);
  for (const s of channels) if (!named.has(s)) problems.push(`asyncapi.yaml channel ${s} has no entry in deploy/nats/permissions.yaml`);
  for (const [address, rule] of Object.entries(table.requests)) {
    const known = [...table.services, ...Object.keys(table.clients), 'self']; // a durable's consumer identity serves and calls nothing
    for (const who of [rule.serve, ...(rule.call ?? []), ...(rule.owners ?? [])]) if (!known.includes(who)) problems.push(`permissions.yaml ${address}: unknown identity ${who}`);
    if (rule.owners && rule.serve !== 'self') problems.push(`permissions.yaml ${address}: owners needs serve: self`);
  }
  for (const [durable, d] of Object.entries(table.log.durables)) {
    if (d.consumer && (table.services.includes(d.consumer) || table.clients[d.consumer])) problems.push(`permissions.yaml durable ${durable}: its consumer ${d.consumer} must be an identity of its own, not a service or client`);
  }
  for (const [address, rule] of Object.entries(table.log.subjects)) {
    if (rule.append === 'self' && !/^[^{]*\{[^}]+\}/.test(address)) problems.push(`permissions.yaml ${address}: append: self needs a {param} for the owner's name`);
    for (const who of logAppenders(rule)) if (!table.services.includes(who)) problems.push(`permissions.yaml ${address}: only services append to the log, not ${who}`);
  }
  return problems;
}

module.exports = { ADMIN, TABLE_FILE, consumerIdentities, consumerIdentityOf, OPERATOR_SUBJECTS, operatorSubjectProblems, loadTable, identities, kvBuckets, busLayout, permissionsFor, checkAgainstAsyncApi, tableSubjects, inboxPrefix, toWildcard };
