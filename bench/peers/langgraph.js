/** LangGraph.js: the five steps as a linear StateGraph; durability is its checkpointer (PostgresSaver or MemorySaver). */
const { Pool } = require('pg');
const { Annotation, StateGraph, START, END, MemorySaver } = require('@langchain/langgraph');
const { PostgresSaver } = require('@langchain/langgraph-checkpoint-postgres');
const w = require('./workload');

const value = () => Annotation({ reducer: (_old, next) => next, default: () => null });
const State = Annotation.Root({
  request_id: value(),
  user_id: value(),
  message: value(),
  classification: value(),
  decision: value(),
  task: value(),
  written: value(),
  audited: value(),
});

function buildGraph(effects, checkpointer) {
  return new StateGraph(State)
    .addNode('classify', (s) => ({ classification: w.classify(s.message) }))
    .addNode('decide', (s) => ({ decision: w.decide(s.classification) }))
    .addNode('tool', (s) => ({ task: w.toolCall(s.request_id, s.decision) }))
    .addNode('write', async (s) => ({ written: await effects.write(s.user_id, s.task) }))
    .addNode('audit', async (s) => ({ audited: await effects.audit(w.auditRecord(s.request_id, s.user_id, s.decision, s.task)) }))
    .addEdge(START, 'classify')
    .addEdge('classify', 'decide')
    .addEdge('decide', 'tool')
    .addEdge('tool', 'write')
    .addEdge('write', 'audit')
    .addEdge('audit', END)
    .compile({ checkpointer });
}

/** `mode`: 'postgres' (durable peer) or 'memory' (the in-memory reference). */
async function startLangGraph({ mode, databaseUrl }) {
  let pool = null;
  let checkpointer;
  let effects;
  if (mode === 'postgres') {
    pool = new Pool({ connectionString: databaseUrl, max: 20 });
    checkpointer = PostgresSaver.fromConnString(databaseUrl);
    await checkpointer.setup();
    effects = w.postgresEffects(pool);
  } else {
    checkpointer = new MemorySaver();
    effects = w.memoryEffects();
  }
  await effects.setup();
  const graph = buildGraph(effects, checkpointer);
  return {
    async run(req) {
      const out = await graph.invoke(req, { configurable: { thread_id: req.request_id } });
      if (!out.audited) throw new Error('langgraph: the run ended without its audit step');
    },
    async stop() {
      if (mode === 'postgres') await checkpointer.end?.();
      await pool?.end();
    },
  };
}

module.exports = { startLangGraph };
