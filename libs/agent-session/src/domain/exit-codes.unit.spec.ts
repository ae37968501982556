import { exitCodeFor } from './exit-codes';
import type { AIAgentResult } from './types';

const result = (success: boolean): AIAgentResult => ({ success, conversation: [], accounting: [] });

describe('CLI exit codes', () => {
  it('CLI Exit Codes: 0 success/informational, 1 session failure or internal error, 3 init failures, 4 invalid args/config/validation, 5 schema validation', () => {
    expect(exitCodeFor({ kind: 'session', result: result(true) })).toBe(0);
    expect(exitCodeFor({ kind: 'informational' })).toBe(0);
    expect(exitCodeFor({ kind: 'session', result: result(false) })).toBe(1);
    expect(exitCodeFor({ kind: 'session', result: { ...result(false), error: { kind: 'auth', message: 'bad key' } } })).toBe(1);
    expect(exitCodeFor({ kind: 'internal_error', message: 'x' })).toBe(1);
    expect(exitCodeFor({ kind: 'mcp_init_failed', message: 'x' })).toBe(3);
    expect(exitCodeFor({ kind: 'init_failed', message: 'x' })).toBe(3);
    for (const kind of ['invalid_arguments', 'config_error', 'validation_error'] as const) expect(exitCodeFor({ kind, message: 'x' })).toBe(4);
    expect(exitCodeFor({ kind: 'schema_validation_failed', message: 'x' })).toBe(5);
  });
});
