/**
 * The durable 5-step workload every system in the benchmark runs: classify (a deterministic fake model),
 * decide, tool call, governed write, audit. Each system makes every step durable its own way (a checkpoint,
 * a journal entry, a step record, an event); the write and the audit record are idempotent by request id,
 * so a retried request never writes twice. Runledger runs the same five steps as its real task-assistant
 * request path (rules classifier, contract-000 decision, create_task through tool-gateway, db-write, audit chain).
 */
const { createHash } = require('node:crypto');

/** The fake model: same answer for the same message, no I/O (no system is measured on a model's latency). */
function classify(message) {
  const match = /^add task (.+)$/i.exec(message);
  return match ? { intent: 'create_task', confidence: 0.95, description: match[1] } : { intent: 'unclear', confidence: 0.2, description: '' };
}

function decide(classification) {
  return classification.intent === 'create_task' && classification.confidence >= 0.8 && classification.description
    ? { action: 'create_task', description: classification.description }
    : { action: 'clarify', description: '' };
}

/** The tool: a task whose id derives from the request, so a repeated call yields the same task. */
function toolCall(requestId, decision) {
  const taskId = createHash('sha256').update(`task:${requestId}`).digest('hex').slice(0, 32);
  return { task_id: taskId, description: decision.description, status: 'pending' };
}

function auditRecord(requestId, userId, decision, task) {
  return { request_id: requestId, user_id: userId, action: decision.action, task_id: task.task_id };
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS bench_tasks (task_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, description TEXT NOT NULL, status TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS bench_audit (request_id TEXT PRIMARY KEY, record JSONB NOT NULL);`;

/** The governed write and the audit record on PostgreSQL, both idempotent by key. */
function postgresEffects(pool) {
  return {
    async setup() {
      await pool.query(SCHEMA);
    },
    async write(userId, task) {
      await pool.query('INSERT INTO bench_tasks (task_id, user_id, description, status) VALUES ($1, $2, $3, $4) ON CONFLICT (task_id) DO NOTHING', [task.task_id, userId, task.description, task.status]);
      return { written: task.task_id };
    },
    async audit(record) {
      await pool.query('INSERT INTO bench_audit (request_id, record) VALUES ($1, $2) ON CONFLICT (request_id) DO NOTHING', [record.request_id, record]);
      return { audited: record.request_id };
    },
  };
}

/** The same effects in memory, for the in-memory reference (LangGraph with MemorySaver). */
function memoryEffects() {
  const tasks = new Map();
  const audit = new Map();
  return {
    async setup() {},
    async write(userId, task) {
      if (!tasks.has(task.task_id)) tasks.set(task.task_id, { ...task, user_id: userId });
      return { written: task.task_id };
    },
    async audit(record) {
      if (!audit.has(record.request_id)) audit.set(record.request_id, record);
      return { audited: record.request_id };
    },
  };
}

module.exports = { classify, decide, toolCall, auditRecord, postgresEffects, memoryEffects };
