/**
 * Issue 25 review: the console's live updates (server-sent events) carry a run's text as data only. An event stream
 * ends a line at CR LF, LF or a bare CR (WHATWG HTML §9.2.6), so a CR in a run's text must never start a field.
 */
import { esc } from '../scripts/cli/console/html';
import { sseEvent } from '../scripts/cli/console/live';

/** The browser's reading of an event stream (WHATWG "interpreting an event stream"): each event's type, data and id. */
function readStream(stream: string): { type: string; data: string; id: string }[] {
  const events: { type: string; data: string; id: string }[] = [];
  let type = '';
  let data: string[] = [];
  let id = '';
  for (const line of stream.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length) events.push({ type: type || 'message', data: data.join('\n'), id });
      type = '';
      data = [];
      continue;
    }
    const colon = line.indexOf(':');
    if (colon === 0) continue;
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') type = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
  }
  return events;
}

describe('Issue 25 console live updates: SSE framing', () => {
  it('Issue 25 a bare CR (or CR LF) in the rendered text stays data: one update event, no injected id, event or second event', () => {
    const html = '<td>run text\rid: 666\revent: evil\r\rdata: injected\r\nend</td>';
    expect(readStream(sseEvent('update', html))).toEqual([{ type: 'update', data: '<td>run text\nid: 666\nevent: evil\n\ndata: injected\nend</td>', id: '' }]);
  });

  it('Issue 25 the console escapes a CR in run text as &#13;, so none reaches the stream bare', () => {
    expect(esc('a\rb\r\nc')).toBe('a&#13;b&#13;\nc');
    expect(readStream(sseEvent('update', `<pre>${esc('x\rid: 1')}</pre>`))).toEqual([{ type: 'update', data: '<pre>x&#13;id: 1</pre>', id: '' }]);
  });
});
