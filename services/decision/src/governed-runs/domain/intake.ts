import { invalidInput } from './errors';
import { clip, isoDay, textOf } from './text';

/** Fields a client intake form must carry before attorney review (contract 001 §4.2 checklist). */
export const REQUIRED_INTAKE_FIELDS = ['name', 'contact', 'matter_description', 'incident_date', 'opposing_party'] as const;
export type IntakeField = (typeof REQUIRED_INTAKE_FIELDS)[number];

const FIELD_PROMPTS: Record<IntakeField, string> = {
  name: 'Full name of the client.',
  contact: 'An email address or phone number to reach the client.',
  matter_description: 'A short description of what happened.',
  incident_date: 'The date of the incident (YYYY-MM-DD).',
  opposing_party: 'Who the claim is against (person or organisation).',
};

/** Matters this practice does not take; a match routes the intake to reject. */
export const OUT_OF_SCOPE_TERMS = ['criminal charge', 'arrested', 'divorce', 'custody', 'immigration', 'bankruptcy'];
/** Default limitation period screened at intake; older incidents are flagged, an attorney decides. */
export const LIMITATION_YEARS = 6;
const NARRATIVE_MAX = 600;

export type IntakeDecision = 'accept' | 'reject' | 'needs-more-info';

export interface IntakeAssessment {
  summary: { decision: IntakeDecision; flags: string[]; narrative: string; missing_fields: IntakeField[] };
  checklist: { required_fields: IntakeField[]; missing: Array<{ field: IntakeField; prompt: string }>; complete: boolean };
  entities: Array<{ entity_type: 'person' | 'organization'; name: string; role: 'client' | 'opposing_party' }>;
}

function present(form: Record<string, unknown>, field: IntakeField): boolean {
  const value = form[field];
  if (field === 'contact' && value !== null && typeof value === 'object') {
    const c = value as Record<string, unknown>;
    return textOf(c.email) !== '' || textOf(c.phone) !== '';
  }
  return textOf(value) !== '';
}

/**
 * Triage of a client intake form (§4.2): which required fields are missing, screening flags, and the routing
 * (reject on a screening flag, needs-more-info while fields are missing, accept otherwise). `asOfDay`
 * (YYYY-MM-DD, the run's start) is data, so the same form assessed on replay gives the same result.
 */
export function assessIntake(form: unknown, asOfDay: string): IntakeAssessment {
  if (form === null || typeof form !== 'object' || Array.isArray(form)) throw invalidInput('The client intake form must be a JSON object.');
  const f = form as Record<string, unknown>;
  const missing = REQUIRED_INTAKE_FIELDS.filter((field) => !present(f, field));
  const flags: string[] = [];

  const incident = textOf(f.incident_date);
  if (incident) {
    const day = isoDay(incident);
    if (!day) {
      flags.push('invalid_incident_date');
      if (!missing.includes('incident_date')) missing.push('incident_date');
    } else if (day > asOfDay) flags.push('incident_date_in_future');
    else if (yearsBetween(day, asOfDay) >= LIMITATION_YEARS) flags.push('possibly_time_barred');
  }
  const matter = textOf(f.matter_description).toLowerCase();
  if (OUT_OF_SCOPE_TERMS.some((term) => matter.includes(term))) flags.push('outside_practice_area');

  const rejects = flags.some((flag) => flag === 'possibly_time_barred' || flag === 'outside_practice_area');
  const decision: IntakeDecision = rejects ? 'reject' : missing.length > 0 || flags.includes('incident_date_in_future') ? 'needs-more-info' : 'accept';
  const client = textOf(f.name) || 'The client';
  const against = textOf(f.opposing_party);
  const narrative = clip(
    `${client} reports: ${textOf(f.matter_description) || 'no description given'}${against ? ` Against: ${against}.` : ''}` +
      `${incident ? ` Incident date: ${incident}.` : ''} Routing: ${decision}${flags.length ? ` (${flags.join(', ')})` : ''}.`,
    NARRATIVE_MAX,
  );
  const entities: IntakeAssessment['entities'] = [];
  if (textOf(f.name)) entities.push({ entity_type: 'person', name: clip(textOf(f.name), 200), role: 'client' });
  if (against) entities.push({ entity_type: /\b(inc|llc|ltd|corp|company|co)\b\.?/i.test(against) ? 'organization' : 'person', name: clip(against, 200), role: 'opposing_party' });

  return {
    summary: { decision, flags, narrative, missing_fields: missing },
    checklist: { required_fields: [...REQUIRED_INTAKE_FIELDS], missing: missing.map((field) => ({ field, prompt: FIELD_PROMPTS[field] })), complete: missing.length === 0 },
    entities,
  };
}

function yearsBetween(fromDay: string, toDay: string): number {
  const [fy, fm, fd] = fromDay.split('-').map(Number);
  const [ty, tm, td] = toDay.split('-').map(Number);
  return ty - fy - (tm < fm || (tm === fm && td < fd) ? 1 : 0);
}
