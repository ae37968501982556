import { Inject, Injectable } from '@nestjs/common';
import type { ArtifactRef, GovernanceScope } from '@runledger/contracts';
import type { DocumentStore } from '@runledger/document-store';
import { DOCUMENT_STORE } from '@runledger/messaging';
import { ArtifactClient } from '@runledger/service-clients';

/** What a candidate is screened against: the source case's own text and its client's identifiers. */
export interface CaseSources {
  /** The source artifacts read (verified) from the artifact store: the promotion run's input artifacts. */
  artifacts: ArtifactRef[];
  /** Their text, then the text of the case's transcripts and interview notes in the document store. */
  texts: string[];
  /** The case's entities' identifying fields, plus those the caller supplied. */
  identifiers: string[];
}

export type SourcesOutcome = { ok: true; sources: CaseSources } | { ok: false; code: string; reason: string };

/** Case-plane collections holding raw case text (written through db-write under WRITE_INTAKE_ARTIFACTS). */
export const CASE_TEXT_COLLECTIONS = ['transcripts', 'interview_notes'] as const;
/** Fields of an `entities` document that identify a person. */
export const IDENTITY_FIELDS = ['name', 'full_name', 'first_name', 'last_name', 'aliases', 'email', 'emails', 'phone', 'phones', 'address', 'case_number'] as const;
/** Documents read per collection; a case's text planes are small, this bounds a runaway case. */
const MAX_DOCS = 1000;

/**
 * Reads what a promotion of a case insight must be screened against. Source artifacts are read through
 * rl.artifacts.get as the promotion run, scoped to the source case, so case isolation and hash checks
 * apply to the gatekeeper too; the case's documents are read directly (read-only) from the document store.
 */
@Injectable()
export class CaseSourcesReader {
  constructor(private readonly artifacts: ArtifactClient, @Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  async load(input: { caseId?: string; artifactIds: readonly string[]; suppliedIdentifiers: readonly string[] }, governance: GovernanceScope): Promise<SourcesOutcome> {
    const fetched = await this.artifacts.fetchAll(input.artifactIds, { ...governance, ...(input.caseId ? { case_id: input.caseId } : {}) });
    if (!fetched.ok) return fetched;
    const decoder = new TextDecoder('utf-8');
    const texts = fetched.artifacts.map((a) => decoder.decode(a.bytes));
    const identifiers = [...input.suppliedIdentifiers];
    if (input.caseId) {
      for (const collection of CASE_TEXT_COLLECTIONS) {
        for (const doc of await this.caseDocs(collection, input.caseId)) texts.push(strings(doc).join('\n'));
      }
      for (const entity of await this.caseDocs('entities', input.caseId)) {
        for (const field of IDENTITY_FIELDS) identifiers.push(...strings(entity[field]));
      }
    }
    return { ok: true, sources: { artifacts: fetched.artifacts.map((a) => a.ref), texts, identifiers: [...new Set(identifiers.map((i) => i.trim()).filter(Boolean))] } };
  }

  private async caseDocs(collection: string, caseId: string): Promise<Array<Record<string, unknown>>> {
    const docs = await this.store.collection<Record<string, unknown>>(collection).find({ case_id: caseId }, { limit: MAX_DOCS });
    return docs.map((d) => d.value);
  }
}

/** Every string inside a JSON value (ids and all: extra text only makes the verbatim check stricter). */
export function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}
