/**
 * runledger erase's refusal names the admin's credentials where `npm start` wrote them (README "Operator commands":
 * `admin.nk` for erase, under RL_DATA_DIR when set), the one path connection.ts shows, never a fixed .data/… path.
 */
import path from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';

describe('runledger erase: the refusal names the credentials npm start wrote', () => {
  it('README "Operator commands", erase is the admin\'s: an identity that may not erase is pointed at admin.nk under RL_DATA_DIR', async () => {
    const saved = process.env.RL_DATA_DIR;
    process.env.RL_DATA_DIR = 'custom-data';
    try {
      let mayErase!: (nc: NatsConnection) => Promise<void>;
      jest.isolateModules(() => {
        ({ mayErase } = require('./erase') as typeof import('./erase'));
      });
      const refused = { request: () => Promise.reject(new Error('Permissions Violation for Publish to "$JS.API.STREAM.MSG.DELETE.KV_rl_data_keys"')) } as unknown as NatsConnection;
      const shown = path.relative(process.cwd(), path.join(__dirname, '..', '..', 'custom-data', 'credentials', 'admin.nk'));
      await expect(mayErase(refused)).rejects.toMatchObject({ exitCode: 3, message: expect.stringContaining(`--creds with its credentials, ${shown} on the local stack`) });
      await expect(mayErase(refused)).rejects.not.toMatchObject({ message: expect.stringContaining('.data/credentials') });
    } finally {
      if (saved === undefined) delete process.env.RL_DATA_DIR;
      else process.env.RL_DATA_DIR = saved;
    }
  });
});
