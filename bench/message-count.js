/**
 * Counting the messages through nats-server while requests run, in total and by hop (`npm run bench -- --messages`).
 *
 * A `>` subscription of the admin's own (a connection of its own; every identity is in the one application account,
 * so it sees them all: requests and replies, appends and their acks, consumers' deliveries and acks, republished
 * copies, KV puts, direct gets, consumers' pull requests). Left out: the bench's own settle probes (consumer info
 * requests and their replies), and JetStream's advisories (`$JS.EVENT.>`), which nats-server publishes only when
 * someone listens: here only because this subscription does.
 *
 * Each message gets a class from its subject (or, for a delivery, from its `$JS.ACK` reply); an answer (`_INBOX…`)
 * gets the class of the message it answers, as `← class`.
 */
const { connect } = require('@nats-io/transport-node');
const { identityOptions } = require('../libs/messaging/src/nats-identity');

/** What a get asks for, from its JSON body: `seq`, `last_by_subj rl.log.run.*`, … ('' when it has no body). */
function getAsked(data) {
  try {
    const body = JSON.parse(new TextDecoder().decode(data));
    return Object.entries(body).map(([k, v]) => (typeof v === 'string' ? `${k} ${v.split('.').slice(0, 3).join('.')}.*` : k)).join(' ');
  } catch {
    return '';
  }
}

/** The hop a message is, from its subject, reply subject and body; null for an answer whose question was not seen. */
function classOf(subject, reply, data) {
  const t = subject.split('.');
  if (reply?.startsWith('$JS.ACK.')) return `delivery to consumer ${reply.split('.')[3]}`;
  if (subject.startsWith('$JS.ACK.')) return `ack by consumer ${t[3]}`;
  if (subject.startsWith('$JS.API.CONSUMER.MSG.NEXT.')) return `pull request of consumer ${t[6]}`;
  if (subject.startsWith('$JS.API.DIRECT.GET.')) return `direct get ${t.length > 5 ? `last_by_subj ${t.slice(5, 8).join('.')}.*` : getAsked(data)} (${t[4]})`;
  if (subject.startsWith('$JS.API.STREAM.MSG.GET.')) return `stream msg get ${getAsked(data)} (${t[5]})`;
  if (subject.startsWith('$JS.API.')) return `JetStream API ${t.slice(2, 4).join('.')}`;
  if (subject.startsWith('$KV.')) return `KV put ${t[1]}`;
  if (subject.startsWith('$O.')) return `object store ${t[1]}`;
  // Log and live-feed subjects: their first four tokens (rl.log.run.<owner>, floor.log.run.<id> → three).
  if (/^(rl|floor)\.(log|live)\./.test(subject)) return `${t.slice(0, 3).join('.')}.*${reply ? ' (append)' : ' (copy, no reply)'}`;
  return subject.startsWith('_INBOX') ? null : `request ${subject}`;
}

/**
 * Counts every message through nats-server while `fn` runs: `{ total, byClass, totalBytes, bytesByClass }` (byClass:
 * Map class → count; bytes: body + headers, which every process on the path encodes, parses or stores).
 */
async function countMessages(nats, fn) {
  const admin = await connect({ servers: nats.url, ...identityOptions({ creds: nats.creds.admin.file }), name: 'bench-message-count' });
  let total = 0;
  let totalBytes = 0;
  const byClass = new Map();
  const bytesByClass = new Map();
  const questions = new Map();
  const probes = new Set();
  const add = (cls, bytes) => {
    byClass.set(cls, (byClass.get(cls) ?? 0) + 1);
    bytesByClass.set(cls, (bytesByClass.get(cls) ?? 0) + bytes);
  };
  admin.subscribe('>', {
    callback: (_err, m) => {
      if (m.subject.startsWith('$JS.EVENT.')) return;
      if (m.subject.startsWith('$JS.API.CONSUMER.INFO.')) {
        if (m.reply) probes.add(m.reply);
        return;
      }
      if (probes.delete(m.subject)) return;
      total++;
      // What nats-server carries of it besides the subjects: the body and the header block.
      const bytes = m.data.length + (m.headers ? m.headers.encode().length : 0);
      totalBytes += bytes;
      let cls = classOf(m.subject, m.reply, m.data);
      if (cls === null) {
        const asked = questions.get(m.subject);
        // A pull request's inbox stays open: every delivery and status on it answers the one request.
        if (asked && !asked.startsWith('pull request')) questions.delete(m.subject);
        cls = asked ? `← ${asked}` : 'answer to an unseen question';
      }
      if (m.reply && !m.reply.startsWith('$JS.ACK.')) questions.set(m.reply, cls);
      add(cls, bytes);
    },
  });
  try {
    await admin.flush();
    await fn();
    // Whatever was published before this round trip has reached the subscription.
    await admin.flush();
    return { total, byClass, totalBytes, bytesByClass };
  } finally {
    await admin.close();
  }
}

/** The breakdown as table rows `| hop | messages/request | bytes/request |`, most messages first, for `requests` requests. */
function breakdownLines({ total, byClass, totalBytes, bytesByClass }, requests) {
  const rows = [...byClass.entries()].sort((a, b) => b[1] - a[1]);
  const kb = (bytes) => Math.round(bytes / requests).toLocaleString('en-US');
  return [
    '| hop | messages/request | bytes/request (body + headers) |',
    '|---|---|---|',
    ...rows.map(([cls, n]) => `| ${cls} | ${(n / requests).toFixed(2)} | ${kb(bytesByClass.get(cls))} |`),
    `| **total** | **${(total / requests).toFixed(1)}** | **${kb(totalBytes)}** |`,
  ];
}

module.exports = { countMessages, breakdownLines, classOf };
