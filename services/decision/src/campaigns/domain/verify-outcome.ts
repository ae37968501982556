/**
 * FR-007: the controller's own check of a tool's outcome before any task status changes. A tool reporting
 * success is not enough: the result must show the effect the proposal asked for.
 */
export function verifyToolOutcome(toolName: string, parameters: Record<string, unknown>, status: string, result: unknown): { verified: boolean; check: string } {
  if (status !== 'ok') return { verified: false, check: `tool ${status}` };
  const r = (typeof result === 'object' && result !== null ? result : {}) as Record<string, unknown>;
  switch (toolName) {
    case 'browser_navigate': {
      const asked = normaliseUrl(parameters['url']);
      const at = normaliseUrl(r['url']);
      const httpStatus = typeof r['status'] === 'number' ? r['status'] : 0;
      const ok = asked !== null && at === asked && httpStatus >= 200 && httpStatus < 400;
      return { verified: ok, check: ok ? `page ${at} loaded (HTTP ${httpStatus})` : `asked for ${asked ?? '?'}, browser is at ${at ?? '?'} (HTTP ${httpStatus})` };
    }
    case 'browser_click': {
      const ok = r['clicked'] === true && r['selector'] === parameters['selector'];
      return { verified: ok, check: ok ? `clicked ${String(r['selector'])}; page ${String(r['url'])}` : 'the click was not confirmed' };
    }
    case 'browser_type': {
      const ok = typeof parameters['text'] === 'string' && r['value'] === parameters['text'];
      return { verified: ok, check: ok ? `field ${String(parameters['selector'])} holds the typed text` : 'the field does not hold the typed text' };
    }
    case 'send_message': {
      const ok = typeof r['outbox_id'] === 'string' && r['content_sha256'] !== undefined;
      return { verified: ok, check: ok ? `message ${String(r['outbox_id'])} is in the outbox` : 'no outbox record' };
    }
    default:
      return { verified: false, check: `no verification for ${toolName}` };
  }
}

function normaliseUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    return new URL(value).href;
  } catch {
    return null;
  }
}
