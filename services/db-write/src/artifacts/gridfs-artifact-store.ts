import { GridFSBucket, MongoClient } from 'mongodb';
import type { ArtifactRef } from '@runledger/governance';
import { ARTIFACT_BUCKET, ArtifactStore, decodeRef, StoredArtifact } from './artifact-store';

/**
 * Artifacts in MongoDB GridFS (bucket `rl_artifacts`, filename = artifact_id, the reference in the file's
 * metadata). Two racing first puts may both upload; they carry the same bytes (the id is content-addressed),
 * and reads always take the oldest file, so the race is harmless.
 */
export class GridFsArtifactStore implements ArtifactStore {
  readonly kind = 'gridfs' as const;
  private readonly bucket: GridFSBucket;

  private constructor(private readonly client: MongoClient, dbName: string) {
    this.bucket = new GridFSBucket(client.db(dbName), { bucketName: ARTIFACT_BUCKET });
  }

  static connect(url: string): GridFsArtifactStore {
    const client = new MongoClient(url);
    // Same database choice as the document store: the URL's, never MongoDB's implicit 'test'.
    const name = client.options.dbName && client.options.dbName !== 'test' ? client.options.dbName : 'runledger';
    return new GridFsArtifactStore(client, name);
  }

  private async oldest(artifactId: string) {
    const [file] = await this.bucket.find({ filename: artifactId }).sort({ uploadDate: 1, _id: 1 }).limit(1).toArray();
    return file ?? null;
  }

  async putIfAbsent(ref: ArtifactRef, bytes: Uint8Array): Promise<{ ref: ArtifactRef; created: boolean }> {
    const held = await this.oldest(ref.artifact_id);
    if (held) return { ref: decodeRef(held.metadata?.artifact_ref, ref.artifact_id), created: false };
    await new Promise<void>((resolve, reject) => {
      const upload = this.bucket.openUploadStream(ref.artifact_id, { metadata: { artifact_ref: { ...ref } } });
      upload.once('error', reject);
      upload.once('finish', () => resolve());
      upload.end(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    });
    return { ref, created: true };
  }

  async get(artifactId: string): Promise<StoredArtifact | null> {
    const file = await this.oldest(artifactId);
    if (!file) return null;
    const ref = decodeRef(file.metadata?.artifact_ref, artifactId);
    const chunks: Buffer[] = [];
    for await (const chunk of this.bucket.openDownloadStream(file._id)) chunks.push(chunk as Buffer);
    return { ref, bytes: new Uint8Array(Buffer.concat(chunks)) };
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
