/**
 * Operator output: text a caller, a model or the log controls reaches a person's terminal through the CLI's renderers
 * (scripts/cli/format.ts printable). A terminal acts on control characters (ESC clears the screen, sets the window
 * title; CR and newline fake lines; bidi overrides reorder them): they are shown escaped, never sent.
 */
import { errorText, eventDetail, printable, printableLines, table, terminalJson } from './format';
import { esc } from './console/html';
import { textWaterfall } from './console/waterfall';
import type { RunNode } from './runs';

/** What a terminal would act on (less the newline a renderer writes between its own lines). */
// eslint-disable-next-line no-control-regex -- control characters are what the test looks for
const ACTED_ON = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const HOSTILE = 'ansi\u001b[2J\u001b[31mEVIL\u001b[0m\r nul\u0000 del\u007f csi\u009b bidi\u202eevil\u2066x\u2069 bell\u0007';

describe('Operator output: caller-controlled control characters are shown escaped, never sent to the terminal', () => {
  it('printable escapes C0, DEL, C1 and bidi embedding/override/isolate characters as \\uXXXX, so the operator sees they were there', () => {
    const shown = printable(HOSTILE);
    expect(shown).not.toMatch(ACTED_ON);
    expect(shown).not.toContain('\n');
    expect(shown).toBe('ansi\\u001b[2J\\u001b[31mEVIL\\u001b[0m\\u000d nul\\u0000 del\\u007f csi\\u009b bidi\\u202eevil\\u2066x\\u2069 bell\\u0007');
    expect(printable('a\nb\tc')).toBe('a\\u000ab\\u0009c');
    for (const c of ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069']) expect(printable(c)).toMatch(/^\\u20[26][0-9a-e]$/);
  });

  it('printable leaves ordinary text alone (accents, CJK, emoji, the ellipsis) and escaping twice shows the same', () => {
    const ordinary = 'Zoë 東京 🌱 … water the ficus — done';
    expect(printable(ordinary)).toBe(ordinary);
    expect(printable(printable(HOSTILE))).toBe(printable(HOSTILE));
  });

  it('printableLines keeps the line breaks a renderer means (a multi-line reply) and escapes the rest on each line', () => {
    expect(printableLines('task 1\u001b[2J\ntask 2\r')).toBe('task 1\\u001b[2J\ntask 2\\u000d');
  });

  it('a table cell with a newline or escape sequence (runs list, deadletters list) stays one row, escaped', () => {
    const out = table(['RUN', 'CASE/USER', 'ERROR'], [['r-1', 'u\nfake row\u001b[2J', 'E\u202e']]);
    expect(out.split('\n')).toHaveLength(3); // header, one row, the final newline
    expect(out).not.toMatch(ACTED_ON);
    expect(out).toContain('u\\u000afake row\\u001b[2J');
    expect(out).toContain('E\\u202e');
  });

  it('event details and error texts (runs show, runs tail) are escaped', () => {
    expect(eventDetail({ type: 'RunCancelRequested', data: { reason: 'stop\u001b]0;pwned\u0007' } })).toBe(' stop\\u001b]0;pwned\\u0007');
    expect(errorText({ error_code: 'TOOL.FAILED', message: 'boom\r\u001b[2K' })).toBe('TOOL.FAILED: boom\\u000d\\u001b[2K');
    expect(eventDetail({ type: 'RunFailed', data: { error: { error_code: 'X', message: 'a\nb' } } })).toBe(' X: a\\u000ab');
  });

  it('runs show --waterfall: an agent name with escape sequences is shown escaped', () => {
    const node = {
      summary: null,
      children: [],
      run: {
        run_id: 'r-1', status: 'completed', run: { agent_name: 'A\u001b[2J', run_kind: 'agent' }, child_run_ids: [], tool_calls: [],
        created_at: '2026-11-27T10:00:00.000Z', updated_at: '2026-11-27T10:00:01.000Z',
        events: [
          { seq: 1, type: 'RunCreated', data: {}, recorded_at: '2026-11-27T10:00:00.000Z' },
          { seq: 2, type: 'RunCompleted', data: {}, recorded_at: '2026-11-27T10:00:01.000Z' },
        ],
      },
    } as unknown as RunNode;
    const out = textWaterfall(node);
    expect(out).not.toMatch(ACTED_ON);
    expect(out).toContain('A\\u001b[2J');
  });

  it('JSON output (--json) stays exact JSON of the same value and is terminal-safe: DEL, C1 and bidi characters escaped too', () => {
    const value = { user_id: HOSTILE, nested: [{ message: 'x\u202ey\u0085' }] };
    const out = terminalJson(value, 2);
    expect(out).not.toMatch(ACTED_ON);
    expect(JSON.parse(out)).toEqual(value);
    expect(out).toContain('\\u202e');
  });

  it('the operators\' console (HTML) shows bidi controls escaped as the CLI does, after its HTML escaping', () => {
    const html = esc('<b>user\u202eevil\u2066x\u2069</b> & "q"');
    expect(html).toBe('&lt;b&gt;user\\u202eevil\\u2066x\\u2069&lt;/b&gt; &amp; &quot;q&quot;');
    expect(html).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
  });
});
