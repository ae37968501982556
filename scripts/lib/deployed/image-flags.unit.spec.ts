const { imageFacts } = require('./manifests') as { imageFacts(): { cmd: string[] } };
const { SERVICE_V8_FLAGS, SERVICE_OWN_V8_FLAGS } = require('../stack') as { SERVICE_V8_FLAGS: string[]; SERVICE_OWN_V8_FLAGS: Record<string, string[]> };

describe('the image runs each service as npm start does', () => {
  it("Issue 22: the image's CMD passes scripts/lib/stack.js's V8 flags (SERVICE_V8_FLAGS, then the service's own), so a deployment keeps the measured settings", () => {
    const script = imageFacts().cmd.at(-1)!;
    expect(script).toContain(`exec node ${SERVICE_V8_FLAGS.join(' ')} $own "dist/services/$SERVICE/src/main.js"`);
    // One service has flags of its own; the CMD sets them for exactly that one.
    expect(Object.keys(SERVICE_OWN_V8_FLAGS)).toEqual(['audit-ledger']);
    expect(script).toContain(`[ "$SERVICE" = audit-ledger ] && own=${SERVICE_OWN_V8_FLAGS['audit-ledger'].join(' ')};`);
  });
});
