/**
 * A peer for the benchmark: the classic relational event store (as in emmett's PostgreSQL store).
 * Same guarantees as our append: idempotent by message id (primary key) and serialised per stream
 * (unique (stream_id, version), the append states the version it expects). Used only by `npm run bench`.
 */
const { Pool } = require('pg');

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS bench_events (
    global_position BIGSERIAL PRIMARY KEY,
    message_id UUID NOT NULL UNIQUE,
    stream_id TEXT NOT NULL,
    version INT NOT NULL,
    type TEXT NOT NULL,
    data JSONB NOT NULL,
    UNIQUE (stream_id, version)
  )`;

async function openPostgresPeer(url = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test') {
  const pool = new Pool({ connectionString: url, max: 16, connectionTimeoutMillis: 2000 });
  await pool.query('SELECT 1');
  await pool.query(SCHEMA);
  await pool.query('TRUNCATE bench_events');
  return {
    /** Appends one event at `expectedVersion` (fails on a concurrent writer, no-ops on a repeated message id). */
    async append(streamId, expectedVersion, messageId, type, data) {
      await pool.query(
        'INSERT INTO bench_events (message_id, stream_id, version, type, data) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (message_id) DO NOTHING',
        [messageId, streamId, expectedVersion + 1, type, data],
      );
      return expectedVersion + 1;
    },
    async close() {
      await pool.query('DROP TABLE IF EXISTS bench_events');
      await pool.end();
    },
  };
}

module.exports = { openPostgresPeer };
