import { executeTool } from './execute-tool';
import { ToolRegistry } from './tool-registry';
import { createToolResult, toolSuccess } from './tool-result';

function registryWithSearch() {
  const calls: unknown[] = [];
  const registry = new ToolRegistry();
  const registered = registry.register({
    name: 'search',
    inputSchema: {
      type: 'object',
      required: ['query'],
      additionalProperties: false,
      properties: { query: { type: 'string', minLength: 1 }, limit: { type: 'integer', minimum: 1, maximum: 50 } },
    },
    execute: (input) => {
      calls.push(input);
      return { hits: [{ title: 'first', tags: ['a'] }] };
    },
  });
  if (!registered.ok) throw new Error(registered.message);
  return { registry, calls };
}

describe('executeTool', () => {
  it('INV-TOOL-001: input that fails the tool schema is rejected with every violation and the tool never runs', async () => {
    const { registry, calls } = registryWithSearch();
    const result = await executeTool(registry, 'search', { query: '', limit: 500, extra: true });
    expect(result.success).toBe(false);
    expect(!result.success && result.error.code).toBe('INVALID_INPUT');
    expect(!result.success && result.error.details).toEqual([
      "(root) must NOT have additional properties: 'extra'",
      '/query must NOT have fewer than 1 characters',
      '/limit must be <= 50',
    ]);
    expect(calls).toEqual([]);
    expect((await executeTool(registry, 'search', { query: 'nats' })).success).toBe(true);
    expect(calls).toEqual([{ query: 'nats' }]);
  });

  it('INV-TOOL-001: a tool whose input schema does not compile cannot be registered', () => {
    const registry = new ToolRegistry();
    const r = registry.register({ name: 'broken', inputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } }, execute: () => 1 });
    expect(r).toMatchObject({ ok: false, code: 'TOOL.INVALID_DEFINITION' });
    expect(registry.isToolAvailable('broken')).toBe(false);
  });

  it('INV-TOOL-002: results are deeply frozen copies; neither caller nor tool can change them afterwards', async () => {
    const { registry } = registryWithSearch();
    const result = await executeTool(registry, 'search', { query: 'x' });
    if (!result.success) throw new Error('expected success');
    const output = result.output as { hits: { title: string; tags: string[] }[] };
    expect(Object.isFrozen(result)).toBe(true);
    expect(() => {
      output.hits[0]!.title = 'changed';
    }).toThrow(TypeError);
    expect(() => output.hits[0]!.tags.push('b')).toThrow(TypeError);
    expect(output.hits[0]).toEqual({ title: 'first', tags: ['a'] });

    const source = { nested: { n: 1 } };
    const made = toolSuccess('t', source);
    source.nested.n = 2;
    expect(made.success && made.output).toEqual({ nested: { n: 1 } });
    expect(Object.isFrozen(source)).toBe(false);
  });

  it('INV-TOOL-002: the factory turns output that cannot be recorded into a frozen failure instead of throwing', () => {
    const result = createToolResult({ success: true, toolName: 'counter', output: { big: 10n } });
    expect(result).toMatchObject({ success: false, toolName: 'counter', error: { code: 'INVALID_OUTPUT' } });
    expect(Object.isFrozen(!result.success && result.error)).toBe(true);
  });

  it('INV-TOOL-003: an unknown tool resolves to TOOL_NOT_FOUND naming the tool, never a throw', async () => {
    const { registry } = registryWithSearch();
    const result = await executeTool(registry, 'delete_everything', {});
    expect(result).toEqual({
      success: false,
      toolName: 'delete_everything',
      error: { code: 'TOOL_NOT_FOUND', message: expect.stringContaining("'delete_everything'") },
    });
    expect(Object.isFrozen(result)).toBe(true);
  });

  it('INV-TOOL-003: a tool that throws becomes an EXECUTION_FAILED result', async () => {
    const registry = new ToolRegistry();
    registry.register({ name: 'flaky', inputSchema: {}, execute: async () => Promise.reject(new Error('upstream 503')) });
    const result = await executeTool(registry, 'flaky', {});
    expect(result).toMatchObject({ success: false, error: { code: 'EXECUTION_FAILED', message: "tool 'flaky' failed: upstream 503" } });
  });
});

describe('tool errors with a stable code', () => {
  it('INV-TOOL-003: a tool that throws an error carrying a code keeps that code in the frozen failure result', async () => {
    const registry = new ToolRegistry();
    registry.register({ name: 'find', inputSchema: { type: 'object' }, execute: () => { throw Object.assign(new Error('missing'), { code: 'NOT_FOUND' }); } });
    const result = await executeTool(registry, 'find', {});
    expect(result).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    expect(Object.isFrozen(result)).toBe(true);
  });
});
