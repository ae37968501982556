import { TOOL_TIMEOUT_STUB, truncationNotice } from '../domain/notices';
import { reply } from '../testing/scripted-model';
import { harness, toolEntries, toolMessages } from './session-harness.unit-support';

describe('toolResponseMaxBytes', () => {
  it('toolResponseMaxBytes: an oversized response is truncated with the exact notice prepended, and a warning names tool, actual bytes and limit', async () => {
    const h = harness({
      script: [reply.tools({ name: 'dump', args: {} }), reply.finalReport('ok')],
      tools: { dump: () => 'y'.repeat(10_240) },
      config: { toolResponseMaxBytes: 1024 },
    });
    const result = await h.run();
    const content = toolMessages(result.conversation)[0]!.content;
    expect(content.startsWith('[TRUNCATED] Original size 10240 bytes; truncated to ')).toBe(true);
    const kept = Number(/truncated to (\d+) bytes\./.exec(content)![1]);
    expect(content).toBe(`${truncationNotice(10_240, kept)}\n${'y'.repeat(kept)}`);
    expect(new TextEncoder().encode(content).length).toBeLessThanOrEqual(1024);
    expect(h.logsOf('tool_response_truncated')[0]!.data).toEqual({ tool: 'dump', actualBytes: 10_240, limitBytes: 1024 });
    expect(toolEntries(result.accounting)[0]).toMatchObject({ status: 'ok', truncated: { originalBytes: 10_240, truncatedBytes: kept } });
  });

  it('toolResponseMaxBytes: agent__batch output is not truncated as a whole, but each tool inside it is', async () => {
    const h = harness({
      script: [
        reply.tools({
          name: 'agent__batch',
          args: { calls: [{ id: 'a', tool: 'dump', parameters: {} }, { id: 'b', tool: 'echo', parameters: { v: 1 } }, { id: 'c', tool: 'echo', parameters: { v: 2 } }] },
        }),
        reply.finalReport('ok'),
      ],
      tools: { dump: () => 'z'.repeat(600), echo: (args) => `echo ${String(args.v)} ${'e'.repeat(380)}` },
      config: { toolResponseMaxBytes: 512, batchTool: true },
    });
    const result = await h.run();
    expect(h.model.requests[0]!.tools.map((t) => t.name)).toEqual(['dump', 'echo', 'agent__batch', 'agent__final_report']);
    const batchOutput = toolMessages(result.conversation)[0]!.content;
    expect(new TextEncoder().encode(batchOutput).length).toBeGreaterThan(512);
    const parsed = JSON.parse(batchOutput) as { results: Array<{ id: string; ok: boolean; output: string }> };
    expect(parsed.results.map((r) => [r.id, r.ok])).toEqual([['a', true], ['b', true], ['c', true]]);
    expect(parsed.results[0]!.output.startsWith('[TRUNCATED] Original size 600 bytes;')).toBe(true);
    expect(parsed.results[1]!.output.startsWith('echo 1')).toBe(true);
    // Every tool inside the batch is accounted on its own.
    expect(toolEntries(result.accounting).map((e) => e.command)).toEqual(['dump', 'echo', 'echo', 'agent__final_report']);
  });

  it('maxToolCallsPerTurn: agent__batch entries count toward the per-turn limit', async () => {
    const h = harness({
      script: [
        reply.tools({ name: 'agent__batch', args: { calls: [1, 2, 3].map((v) => ({ tool: 'echo', parameters: { v } })) } }),
        reply.finalReport('ok'),
      ],
      tools: { echo: (args) => args.v },
      config: { maxToolCallsPerTurn: 2, batchTool: true },
    });
    const result = await h.run();
    const parsed = JSON.parse(toolMessages(result.conversation)[0]!.content) as { results: Array<{ ok: boolean; error?: string }> };
    expect(parsed.results.map((r) => r.ok)).toEqual([true, true, false]);
    expect(parsed.results[2]!.error).toContain('too many tool calls');
    expect(h.executed).toHaveLength(2);
  });
});

describe('toolTimeout', () => {
  it('toolTimeout: a tool running past the timeout is aborted, the LLM sees (tool failed: timeout) and accounting marks it failed', async () => {
    let aborted = false;
    const h = harness({
      script: [reply.tools({ name: 'hang', args: {}, id: 'c1' }, { name: 'quick', args: {}, id: 'c2' }), reply.finalReport('ok')],
      tools: { hang: () => 'unused', quick: () => 'unused' },
      config: { toolTimeout: 5000 },
      ports: {
        tools: {
          execute: (name, _args, { signal }) => {
            if (name === 'quick') return Promise.resolve({ ok: true, output: 'fast' });
            return new Promise(() => signal.addEventListener('abort', () => (aborted = true)));
          },
        },
      },
    });
    const result = await h.run();
    const [hang, quick] = toolMessages(result.conversation);
    expect(hang!.content).toBe(TOOL_TIMEOUT_STUB);
    expect(hang!.content).toBe('(tool failed: timeout)');
    expect(quick!.content).toBe('fast');
    expect(aborted).toBe(true);
    expect(toolEntries(result.accounting)[0]).toMatchObject({ command: 'hang', status: 'failed', error: 'timeout', latency: 5000 });
    expect(h.time.sleeps).toEqual([5000]);
  });

  it('toolTimeout: a tool that answers within the timeout is not affected', async () => {
    const clock: { sleep?: (ms: number) => Promise<void> } = {};
    const h = harness({
      script: [reply.tools({ name: 'slowish', args: {} }), reply.finalReport('ok')],
      tools: { slowish: () => 'unused' },
      config: { toolTimeout: 5000 },
      ports: {
        tools: {
          execute: async () => {
            await clock.sleep!(3000);
            return { ok: true, output: 'done' };
          },
        },
      },
    });
    clock.sleep = (ms) => h.time.sleep(ms);
    const result = await h.run();
    expect(toolMessages(result.conversation)[0]!.content).toBe('done');
    expect(toolEntries(result.accounting)[0]).toMatchObject({ status: 'ok', latency: 3000 });
  });
});

describe('Tool request parsing and repair', () => {
  it('Tool request parsing: repairable arguments run (with a WARN of the steps), unparsable calls are dropped with an error to the LLM while valid calls in the same message proceed', async () => {
    const h = harness({
      script: [
        reply.response({
          toolCalls: [
            { id: 'ok', name: 'echo', arguments: '{"v": 1}' },
            { id: 'repaired', name: 'echo', arguments: "{'v': 2,}" },
            { id: 'broken', name: 'echo', arguments: 'not json at all' },
          ],
        }),
        reply.finalReport('ok'),
      ],
      tools: { echo: (args) => `v=${String(args.v)}` },
    });
    const result = await h.run();
    expect(h.executed.map((e) => e.args)).toEqual([{ v: 1 }, { v: 2 }]);
    const tools = toolMessages(result.conversation);
    expect(tools.map((t) => t.content.slice(0, 40))).toEqual(['v=1', 'v=2', '(tool failed: the arguments are not vali']);
    expect(tools[2]!.content).toContain('Retry with a valid JSON object');
    expect(h.logsOf('tool_arguments_repaired')[0]!.data).toMatchObject({ tool: 'echo', original: "{'v': 2,}", steps: ['jsonrepair'] });
    expect(h.logsOf('tool_arguments_unparsable')[0]!.data).toMatchObject({ raw: 'not json at all' });
  });

  it('Failed tools: errors reach the LLM as (tool failed: <reason>) and accounting as failed with the message', async () => {
    const h = harness({
      script: [reply.tools({ name: 'flaky', args: {} }, { name: 'nope', args: {} }), reply.finalReport('ok')],
      tools: {
        flaky: () => {
          throw new Error('upstream 503');
        },
      },
    });
    const result = await h.run();
    const [flaky, nope] = toolMessages(result.conversation);
    expect(flaky!.content).toBe("(tool failed: tool 'flaky' failed: upstream 503)");
    expect(nope!.content).toContain("(tool failed: tool 'nope' is not available in this turn");
    expect(toolEntries(result.accounting)[0]).toMatchObject({ command: 'flaky', status: 'failed', error: "tool 'flaky' failed: upstream 503", mcpServer: 'test-mcp' });
  });
});
