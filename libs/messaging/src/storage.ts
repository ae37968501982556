import { Provider } from '@nestjs/common';
import { createDocumentStore } from '@runledger/document-store';
import { ServiceRuntime } from './runtime';
import { settingText } from '@runledger/kernel';
import { SealedDocumentStore } from './sealed-documents';

/** Injection token of the document store (MongoDB with MONGO_URL, else the embedded NATS KV store). */
export const DOCUMENT_STORE = Symbol('DOCUMENT_STORE');

export function documentStoreProvider(runtime: ServiceRuntime): Provider {
  return { provide: DOCUMENT_STORE, useFactory: () => createDocumentStore({ natsConnection: runtime.nc, mongoUrl: settingText('MONGO_URL') }) };
}

/**
 * The document store of the services that keep and read personal rows (db-write, promotion): the personal
 * collections are sealed at rest with the owners' data keys (`SealedDocumentStore`, README "Erasure").
 */
export function sealedDocumentStoreProvider(runtime: ServiceRuntime): Provider {
  return { provide: DOCUMENT_STORE, useFactory: () => new SealedDocumentStore(createDocumentStore({ natsConnection: runtime.nc, mongoUrl: settingText('MONGO_URL') }), runtime.dataKeys) };
}
