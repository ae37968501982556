/**
 * Document storage port for read models and domain data, with a NATS KV adapter
 * (embedded default) and a MongoDB adapter, plus the behaviour suite both must pass.
 */
export {
  DocumentConflictError,
  DocumentInvalidError,
  DocumentStoreError,
  type ConflictDetails,
  type DocumentCollection,
  type DocumentStore,
  type FilterValue,
  type FindOptions,
  type StoredDocument,
} from './types';
export { COLLECTION_NAME_PATTERN, MAX_ID_BYTES, validateFind } from './validation';
export { NatsKvDocumentStore, type NatsKvDocumentStoreOptions } from './nats-kv-document-store';
export { isWrongLastSequence, KvCompareAndSet, type KvKeyAt } from './kv-compare-and-set';
export {
  ensureKvBucket, isDeleteRevision, keyRevisions, KV_HISTORY, KV_OPERATION_HEADER, KV_WRITER_HEADER, kvGuardUpdate, kvStreamConfig, nextOnSubject, readWriterRevision, revisionMark, kvWriterHeaders,
  type KvBucketOptions,
} from './kv-writer';
// The MongoDB adapter is reached through createDocumentStore, which loads its driver only when MONGO_URL is set.
export type { MongoDocumentStoreOptions } from './mongo-document-store';
export { createDocumentStore, type CreateDocumentStoreOptions } from './create-document-store';
export { describeDocumentStoreContract } from './document-store.contract';
