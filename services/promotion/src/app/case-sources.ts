import { Inject, Injectable } from '@nestjs/common';
import type { ArtifactRef, GovernanceScope } from '@runledger/contracts';
import type { DocumentStore } from '@runledger/document-store';
import { JSON_BOUNDS, jsonNestingProblem } from '@runledger/kernel';
import { DOCUMENT_STORE } from '@runledger/messaging';
import { ArtifactClient } from '@runledger/service-clients';
import { artifactText, IDENTITY_FIELDS, referencedArtifactIds, REFERENCING_COLLECTIONS, SCREEN_INCOMPLETE, ScreenLimits, strings } from '../domain/case-text';

export const SCREEN_LIMITS = Symbol('SCREEN_LIMITS');

/** What a candidate is screened against: the source case's own text and its client's identifiers. */
export interface CaseSources {
  /** The artifacts the caller named as sources, as read (verified). */
  named: ArtifactRef[];
  /** Every artifact read: the named ones, those the case's records reference, and those these reference in turn. */
  read: ArtifactRef[];
  /** Artifacts read whose media has no local text extraction (PDF, images): verified, not screened. */
  unscreened: ArtifactRef[];
  /** The text of the case's records and of every screenable artifact read. */
  texts: string[];
  /** The case's entities' identifying fields, plus those the caller supplied. */
  identifiers: string[];
}

export type SourcesOutcome = { ok: true; sources: CaseSources } | { ok: false; code: string; reason: string };

const incomplete = (reason: string): SourcesOutcome => ({ ok: false, code: SCREEN_INCOMPLETE, reason: `${reason}: the screen would be incomplete, so nothing is promoted.` });

/**
 * Reads what a promotion of a case insight must be screened against: the case's `transcripts`, `interview_notes`
 * and `facts` records, every artifact they reference (the raw text lives there, not in the records) and every
 * artifact those reference in turn (the source documents the mapping read), the caller's named sources, and the
 * identifying fields of the case's `entities`. Artifacts are read through rl.artifacts.get as the promotion run,
 * scoped to the source case, so case isolation and hash checks apply to the gatekeeper too; records are read
 * directly (read-only) from the document store. Past any limit the outcome is a refusal, never a partial screen.
 */
@Injectable()
export class CaseSourcesReader {
  constructor(
    private readonly artifacts: ArtifactClient,
    @Inject(DOCUMENT_STORE) private readonly store: DocumentStore,
    @Inject(SCREEN_LIMITS) private readonly limits: ScreenLimits,
  ) {}

  async load(input: { caseId?: string; artifactIds: readonly string[]; suppliedIdentifiers: readonly string[] }, governance: GovernanceScope): Promise<SourcesOutcome> {
    const texts: string[] = [];
    const identifiers = [...input.suppliedIdentifiers];
    const toRead = [...input.artifactIds];
    let textBytes = 0;
    const addText = (text: string): boolean => {
      textBytes += Buffer.byteLength(text, 'utf8');
      texts.push(text);
      return textBytes <= this.limits.maxTextBytes;
    };
    const tooMuchText = () => incomplete(`The source case has more than ${this.limits.maxTextBytes} bytes of text`);
    // The screen reads every level of a value up to the bound; deeper, it could read only part of it.
    const tooDeep = () => incomplete(`A record or artifact of the source case is nested deeper than ${JSON_BOUNDS.maxDepth} levels`);

    if (input.caseId) {
      for (const collection of REFERENCING_COLLECTIONS) {
        const records = await this.caseRecords(collection, input.caseId);
        if (!records) return incomplete(`The source case has more than ${this.limits.maxRecords} ${collection} records`);
        for (const record of records) {
          if (jsonNestingProblem(record)) return tooDeep();
          if (!addText(strings(record).join('\n'))) return tooMuchText();
          toRead.push(...referencedArtifactIds(record));
        }
      }
      const entities = await this.caseRecords('entities', input.caseId);
      if (!entities) return incomplete(`The source case has more than ${this.limits.maxRecords} entities`);
      for (const entity of entities) {
        if (jsonNestingProblem(entity)) return tooDeep();
        for (const field of IDENTITY_FIELDS) identifiers.push(...strings(entity[field]));
      }
    }

    const scope: GovernanceScope = { ...governance, ...(input.caseId ? { case_id: input.caseId } : {}) };
    const named = new Set(input.artifactIds);
    const seen = new Set<string>();
    const sources: Omit<CaseSources, 'texts' | 'identifiers'> = { named: [], read: [], unscreened: [] };
    // Breadth-first over references; `toRead` grows as JSON artifacts name further artifacts.
    for (let i = 0; i < toRead.length; i++) {
      const id = toRead[i];
      if (seen.has(id)) continue;
      seen.add(id);
      if (sources.read.length >= this.limits.maxArtifacts) return incomplete(`The source case references more than ${this.limits.maxArtifacts} artifacts`);
      const fetched = await this.artifacts.fetchAll([id], scope);
      if (!fetched.ok) return fetched;
      const { ref, bytes } = fetched.artifacts[0];
      sources.read.push(ref);
      if (named.has(id)) sources.named.push(ref);
      const content = artifactText(ref.media_type, bytes);
      if (content.text === null) {
        sources.unscreened.push(ref);
        continue;
      }
      if (content.json !== undefined && jsonNestingProblem(content.json)) return tooDeep();
      if (!addText(content.text)) return tooMuchText();
      if (content.json !== undefined) toRead.push(...referencedArtifactIds(content.json));
    }
    return { ok: true, sources: { ...sources, texts, identifiers: [...new Set(identifiers.map((i) => i.trim()).filter(Boolean))] } };
  }

  /** The case's records of a collection, or undefined when there are more than the limit (one more is asked for to know). */
  private async caseRecords(collection: string, caseId: string): Promise<Array<Record<string, unknown>> | undefined> {
    const docs = await this.store.collection<Record<string, unknown>>(collection).find({ case_id: caseId }, { limit: this.limits.maxRecords + 1 });
    return docs.length > this.limits.maxRecords ? undefined : docs.map((d) => d.value);
  }
}
