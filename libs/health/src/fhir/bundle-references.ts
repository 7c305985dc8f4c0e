import { randomUUID } from 'node:crypto';
import type { BundleEntry, Observation } from '@medplum/fhirtypes';
import type { FhirProblem } from './fhir-validation.js';

/** A Bundle-local identity (`urn:uuid:…`, `urn:oid:…`): it names an entry of the same Bundle, and nothing once stored. */
const isLocalReference = (reference: string) => /^urn:(uuid|oid):/i.test(reference);

/** Each `reference` string in `value`, at any depth, with its path below `path`. */
function referencesIn(value: unknown, path: string): { path: string; reference: string }[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => referencesIn(item, `${path}[${index}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) =>
    key === 'reference' && typeof item === 'string' ? [{ path: `${path}.reference`, reference: item }] : referencesIn(item, `${path}.${key}`),
  );
}

/** `value` with each `reference` that `replacements` names replaced. */
function withReferences(value: unknown, replacements: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => withReferences(item, replacements));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      key === 'reference' && typeof item === 'string' ? (replacements.get(item) ?? item) : withReferences(item, replacements),
    ]),
  );
}

/** A Bundle's entries with the ids their resources are stored under, and the references between them resolved. */
export interface LinkedEntries {
  /** Per entry, in order: the id to store it under and the resource as it is to be stored. */
  resources: { id: string; resource: Observation }[];
  /** Per entry, in order: what is wrong with its identity or references. */
  problems: FhirProblem[][];
}

/**
 * Gives each entry its id before anything is stored, so that references between entries can name it:
 * in a `transaction` or `collection`, a reference to another entry's `urn:uuid:`/`urn:oid:` fullUrl
 * becomes `Observation/<id>` (FHIR's rule for transactions). Refused, by entry and path: two entries
 * with one fullUrl, a Bundle-local reference no entry answers to, and in a `batch` any Bundle-local
 * reference (its entries are processed on their own; FHIR lets them not depend on each other). Stored
 * as sent, such a reference would point nowhere. `entries` hold validated Observations.
 */
export function linkEntries(type: 'batch' | 'transaction' | 'collection', entries: readonly BundleEntry[]): LinkedEntries {
  const ids = entries.map(() => randomUUID());
  const problems: FhirProblem[][] = entries.map(() => []);
  const replacements = new Map<string, string>();
  entries.forEach((entry, index) => {
    if (!entry.fullUrl || !isLocalReference(entry.fullUrl)) return;
    if (replacements.has(entry.fullUrl)) {
      problems[index]!.push({ path: `Bundle.entry[${index}].fullUrl`, message: `${entry.fullUrl} is the fullUrl of an earlier entry too` });
    } else if (type !== 'batch') replacements.set(entry.fullUrl, `Observation/${ids[index]}`);
  });
  const resources = entries.map((entry, index) => {
    for (const { path, reference } of referencesIn(entry.resource, `Bundle.entry[${index}].resource`)) {
      if (!isLocalReference(reference) || replacements.has(reference)) continue;
      const message =
        type === 'batch'
          ? `${reference} would name another entry of this Bundle, which a batch cannot resolve (its entries are stored on their own): send a transaction`
          : `${reference} is the fullUrl of no entry of this Bundle`;
      problems[index]!.push({ path, message });
    }
    return { id: ids[index]!, resource: withReferences(entry.resource, replacements) as Observation };
  });
  return { resources, problems };
}
