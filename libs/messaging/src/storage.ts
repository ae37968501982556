import { Provider } from '@nestjs/common';
import { createDocumentStore } from '@runledger/document-store';
import { ServiceRuntime } from './runtime';
import { settingText } from '@runledger/kernel';

/** Injection token of the document store (MongoDB with MONGO_URL, else the embedded NATS KV store). */
export const DOCUMENT_STORE = Symbol('DOCUMENT_STORE');

export function documentStoreProvider(runtime: ServiceRuntime): Provider {
  return { provide: DOCUMENT_STORE, useFactory: () => createDocumentStore({ natsConnection: runtime.nc, mongoUrl: settingText('MONGO_URL') }) };
}
