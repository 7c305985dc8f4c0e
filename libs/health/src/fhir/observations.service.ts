import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Bundle, BundleEntry, Observation, OperationOutcome } from '@medplum/fhirtypes';
import { Brackets, type Repository, type EntityManager, type SelectQueryBuilder } from 'typeorm';
import { cursorKey, decodeCursor, InvalidInputError, isUuid, NotFoundError, toPage } from '@app/common';
import { ObservationEntity } from '../entities/observation.entity.js';
import { validateBundleEnvelope, validateObservation, type AcceptedBundleType, type FhirProblem } from './fhir-validation.js';
import { lazyInexactNumbers, type InexactNumbers } from './number-literals.js';
import { parseToken, type DateBound } from './fhir-search.js';
import { toObservationRow } from './observation-row.js';
import { linkEntries } from './bundle-references.js';

export interface ObservationQuery {
  /** Newest first, at most this many. */
  count: number;
  /** Codes (`8867-4`, `http://loinc.org|8867-4`), any of which matches; for the tool, also a word of the display name. */
  codes?: readonly string[];
  /** Whether a code may also match a word of the display name (the tool's looser filter). */
  codeMatchesDisplay?: boolean;
  dateBounds?: readonly DateBound[];
}

/** A FHIR search: a query, and where the previous page ended. */
export interface ObservationSearch extends ObservationQuery {
  /** The `_cursor` of the previous page's `next` link. */
  cursor?: string;
}

/** The URL of a page of the search being answered: `_cursor` set to `cursor`, or left out for the first page. */
export type SearchPageUrl = (cursor: string | undefined) => string;

const problemsError = (summary: string, problems: readonly FhirProblem[]) =>
  new InvalidInputError(
    `${summary}: ${problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ')}`,
    Object.fromEntries(problems.map((problem) => [problem.path, problem.message])),
  );

const outcome = (problems: readonly FhirProblem[]): OperationOutcome => ({
  resourceType: 'OperationOutcome',
  issue: problems.map((problem) => ({ severity: 'error', code: 'invalid', diagnostics: problem.message, expression: [problem.path] })),
});

/** FHIR Observations of one subject: validated ingest (one, batch, transaction, collection) and newest-first reads. */
@Injectable()
export class ObservationsService {
  constructor(@InjectRepository(ObservationEntity) private readonly observations: Repository<ObservationEntity>) {}

  /** `bodyText` is the JSON text `body` was parsed from: only it has the digits of numbers JSON.parse changed. */
  async createOne(subjectId: string, body: unknown, bodyText: string | undefined): Promise<Observation> {
    const problems = validateObservation(body, '', lazyInexactNumbers(bodyText ?? '', 'Observation'));
    if (problems.length > 0) throw problemsError('Invalid Observation', problems);
    return this.store(this.observations.manager, subjectId, body as Observation);
  }

  /**
   * A `transaction` or `collection` is stored whole or not at all (every problem of every entry reported by index
   * and path); a `batch` stores each valid entry and answers per entry with a `batch-response`.
   */
  async ingestBundle(subjectId: string, body: unknown, bodyText: string | undefined): Promise<Bundle> {
    const inexact = lazyInexactNumbers(bodyText ?? '', 'Bundle');
    const envelopeProblems = validateBundleEnvelope(body, inexact);
    if (envelopeProblems.length > 0) throw problemsError('Invalid Bundle', envelopeProblems);
    const bundle = body as Bundle & { type: AcceptedBundleType };
    const entries = bundle.entry!;
    const linked = linkEntries(bundle.type, entries);
    const problemsByEntry = entries.map((entry, index) => [...entryProblems(bundle.type, entry, index, inexact), ...linked.problems[index]!]);
    if (bundle.type === 'batch') {
      const responses: BundleEntry[] = [];
      for (const [index, { id, resource }] of linked.resources.entries()) {
        const problems = problemsByEntry[index]!;
        if (problems.length > 0) responses.push({ response: { status: '400 Bad Request', outcome: outcome(problems) } });
        else responses.push(created(await this.store(this.observations.manager, subjectId, resource, id)));
      }
      return { resourceType: 'Bundle', type: 'batch-response', entry: responses };
    }
    const allProblems = problemsByEntry.flat();
    if (allProblems.length > 0) throw problemsError(`Invalid ${bundle.type}; nothing was stored`, allProblems);
    const stored = await this.observations.manager.transaction(async (manager) => {
      const saved: Observation[] = [];
      for (const { id, resource } of linked.resources) saved.push(await this.store(manager, subjectId, resource, id));
      return saved;
    });
    return { resourceType: 'Bundle', type: 'transaction-response', entry: stored.map(created) };
  }

  /** One of the subject's Observations, as stored; another's answers as a missing one does. */
  async readOne(subjectId: string, id: string): Promise<Observation> {
    const row = isUuid(id) ? await this.observations.findOneBy({ id, subjectId }) : null;
    if (!row) throw notFound(id);
    return row.resource;
  }

  async deleteOne(subjectId: string, id: string): Promise<void> {
    const deleted = isUuid(id) ? await this.observations.delete({ id, subjectId }) : undefined;
    if (!deleted?.affected) throw notFound(id);
  }

  /** Newest first by clinical time (effective[x], else issued). */
  newest(subjectId: string, query: ObservationQuery): Promise<ObservationEntity[]> {
    return this.newestFirst(subjectId, query).take(query.count).getMany();
  }

  /**
   * A `searchset` page, newest first, with `total` counting every match (not only this page's) and a
   * `next` link (keyset `_cursor`) while more remain.
   */
  async searchset(subjectId: string, search: ObservationSearch, pageUrl: SearchPageUrl): Promise<Bundle<Observation>> {
    const page = this.newestFirst(subjectId, search).take(search.count + 1);
    if (search.cursor) {
      const [clinicalAt, id] = decodeCursor(search.cursor, KEYSET, { name: '_cursor', advice: 'follow the next link of the previous page' });
      page.andWhere('(o.clinical_at, o.id) < (:clinicalAt, :id)', { clinicalAt, id });
    }
    const [rows, total] = await Promise.all([page.getMany(), this.matching(subjectId, search).getCount()]);
    const { items, nextCursor } = toPage(rows, search.count, KEYSET, (row) => [row.clinicalAt.toISOString(), row.id]);
    return {
      resourceType: 'Bundle',
      type: 'searchset',
      total,
      link: [{ relation: 'self', url: pageUrl(search.cursor) }, ...(nextCursor ? [{ relation: 'next', url: pageUrl(nextCursor) }] : [])],
      entry: items.map((row) => ({ fullUrl: `Observation/${row.id}`, resource: row.resource, search: { mode: 'match' } })),
    };
  }

  /** By clinical time, then id: the keyset a page's cursor continues from. */
  private newestFirst(subjectId: string, query: ObservationQuery): SelectQueryBuilder<ObservationEntity> {
    return this.matching(subjectId, query).orderBy('o.clinical_at', 'DESC').addOrderBy('o.id', 'DESC');
  }

  /** The subject's observations that `query` matches, unordered. */
  private matching(subjectId: string, query: ObservationQuery): SelectQueryBuilder<ObservationEntity> {
    const builder = this.observations.createQueryBuilder('o').where('o.subject_id = :subjectId', { subjectId });
    if (query.codes?.length) builder.andWhere(anyCode(query.codes, query.codeMatchesDisplay ?? false));
    (query.dateBounds ?? []).forEach((bound, index) => builder.andWhere(`o.clinical_at ${bound.operator} :at${index}`, { [`at${index}`]: bound.at }));
    return builder;
  }

  private async store(manager: EntityManager, subjectId: string, resource: Observation, id: string = randomUUID()): Promise<Observation> {
    const now = new Date();
    const stored: Observation = { ...resource, id, meta: { ...resource.meta, versionId: '1', lastUpdated: now.toISOString() } };
    await manager.insert(ObservationEntity, toObservationRow(id, subjectId, stored, now));
    return stored;
  }
}

function entryProblems(type: AcceptedBundleType, entry: BundleEntry, index: number, inexact: InexactNumbers): FhirProblem[] {
  const at = `Bundle.entry[${index}]`;
  if (type !== 'collection') {
    const { method, url } = entry.request ?? {};
    if (method !== 'POST' || !/^Observation\/?$/.test(url ?? '')) {
      return [{ path: `${at}.request`, message: 'only creating Observations is supported: method POST, url "Observation"' }];
    }
  }
  if (entry.resource === undefined) return [{ path: `${at}.resource`, message: 'is required' }];
  return validateObservation(entry.resource, `${at}.resource`, inexact);
}

const created = (resource: Observation): BundleEntry => ({
  fullUrl: `Observation/${resource.id}`,
  resource,
  response: { status: '201 Created', location: `Observation/${resource.id}/_history/1`, lastModified: resource.meta!.lastUpdated! },
});

/** A search page's keyset: clinical time, then id. */
const KEYSET = [cursorKey.instant, cursorKey.uuid] as const;

const notFound = (id: string) => new NotFoundError(`No Observation with id ${id}`);

/** Observations with any of the codes (`code`, `system|code`); with `matchesDisplay`, also those with the code as a word of their name. */
function anyCode(codes: readonly string[], matchesDisplay: boolean): Brackets {
  return new Brackets((anyOf) =>
    codes.forEach((token, index) => {
      const { system, code } = parseToken(token.trim());
      const [systemKey, codeKey, patternKey] = [`system${index}`, `code${index}`, `pattern${index}`];
      if (system) anyOf.orWhere(`(o.code_system = :${systemKey} AND o.code = :${codeKey})`, { [systemKey]: system, [codeKey]: code });
      else if (!matchesDisplay) anyOf.orWhere(`o.code = :${codeKey}`, { [codeKey]: code });
      else
        anyOf.orWhere(`(o.code = :${codeKey} OR o.display ILIKE :${patternKey})`, {
          [codeKey]: code,
          [patternKey]: `%${code.replace(/[\\%_]/g, (char) => `\\${char}`)}%`,
        });
    }),
  );
}
