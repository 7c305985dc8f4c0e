import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Bundle, BundleEntry, Observation, OperationOutcome } from '@medplum/fhirtypes';
import type { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import { InvalidInputError } from '@app/common';
import { ObservationEntity } from '../entities/observation.entity.js';
import { validateBundleEnvelope, validateObservation, type AcceptedBundleType, type FhirProblem } from './fhir-validation.js';
import { parseToken, type DateBound } from './fhir-search.js';
import { toObservationRow } from './observation-row.js';

export interface ObservationQuery {
  /** Newest first, at most this many. */
  count: number;
  /** A code (`8867-4`, `http://loinc.org|8867-4`) for FHIR search; for the tool, also a word of the display name. */
  code?: string;
  /** Whether `code` may also match a word of the display name (the tool's looser filter). */
  codeMatchesDisplay?: boolean;
  dateBounds?: readonly DateBound[];
}

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
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async createOne(subjectId: string, body: unknown): Promise<Observation> {
    const problems = validateObservation(body);
    if (problems.length > 0) throw problemsError('Invalid Observation', problems);
    return this.store(this.dataSource.manager, subjectId, body as Observation);
  }

  /**
   * A `transaction` or `collection` is stored whole or not at all (every problem of every entry reported by index
   * and path); a `batch` stores each valid entry and answers per entry with a `batch-response`.
   */
  async ingestBundle(subjectId: string, body: unknown): Promise<Bundle> {
    const envelopeProblems = validateBundleEnvelope(body);
    if (envelopeProblems.length > 0) throw problemsError('Invalid Bundle', envelopeProblems);
    const bundle = body as Bundle & { type: AcceptedBundleType };
    const entries = bundle.entry!;
    const problemsByEntry = entries.map((entry, index) => entryProblems(bundle.type, entry, index));
    if (bundle.type === 'batch') {
      const responses: BundleEntry[] = [];
      for (const [index, entry] of entries.entries()) {
        const problems = problemsByEntry[index]!;
        if (problems.length > 0) responses.push({ response: { status: '400 Bad Request', outcome: outcome(problems) } });
        else responses.push(created(await this.store(this.dataSource.manager, subjectId, entry.resource as Observation)));
      }
      return { resourceType: 'Bundle', type: 'batch-response', entry: responses };
    }
    const allProblems = problemsByEntry.flat();
    if (allProblems.length > 0) throw problemsError(`Invalid ${bundle.type}; nothing was stored`, allProblems);
    const stored = await this.dataSource.transaction(async (manager) => {
      const saved: Observation[] = [];
      for (const entry of entries) saved.push(await this.store(manager, subjectId, entry.resource as Observation));
      return saved;
    });
    return { resourceType: 'Bundle', type: 'transaction-response', entry: stored.map(created) };
  }

  /** Newest first by clinical time (effective[x], else issued). */
  async newest(subjectId: string, query: ObservationQuery): Promise<ObservationEntity[]> {
    const builder = this.dataSource
      .getRepository(ObservationEntity)
      .createQueryBuilder('o')
      .where('o.subject_id = :subjectId', { subjectId })
      .orderBy('o.clinical_at', 'DESC')
      .addOrderBy('o.id', 'DESC')
      .take(query.count);
    if (query.code) applyCodeFilter(builder, query.code, query.codeMatchesDisplay ?? false);
    (query.dateBounds ?? []).forEach((bound, index) => builder.andWhere(`o.clinical_at ${bound.operator} :at${index}`, { [`at${index}`]: bound.at }));
    return builder.getMany();
  }

  async searchset(subjectId: string, query: ObservationQuery): Promise<Bundle<Observation>> {
    const rows = await this.newest(subjectId, query);
    return {
      resourceType: 'Bundle',
      type: 'searchset',
      total: rows.length,
      entry: rows.map((row) => ({ fullUrl: `Observation/${row.id}`, resource: row.resource, search: { mode: 'match' } })),
    };
  }

  private async store(manager: EntityManager, subjectId: string, resource: Observation): Promise<Observation> {
    const id = randomUUID();
    const now = new Date();
    const stored: Observation = { ...resource, id, meta: { ...resource.meta, versionId: '1', lastUpdated: now.toISOString() } };
    await manager.insert(ObservationEntity, toObservationRow(id, subjectId, stored, now));
    return stored;
  }
}

function entryProblems(type: AcceptedBundleType, entry: BundleEntry, index: number): FhirProblem[] {
  const at = `Bundle.entry[${index}]`;
  if (type !== 'collection') {
    const { method, url } = entry.request ?? {};
    if (method !== 'POST' || !/^Observation\/?$/.test(url ?? '')) {
      return [{ path: `${at}.request`, message: 'only creating Observations is supported: method POST, url "Observation"' }];
    }
  }
  if (entry.resource === undefined) return [{ path: `${at}.resource`, message: 'is required' }];
  return validateObservation(entry.resource, `${at}.resource`);
}

const created = (resource: Observation): BundleEntry => ({
  fullUrl: `Observation/${resource.id}`,
  resource,
  response: { status: '201 Created', location: `Observation/${resource.id}/_history/1`, lastModified: resource.meta!.lastUpdated! },
});

function applyCodeFilter(builder: SelectQueryBuilder<ObservationEntity>, value: string, matchesDisplay: boolean): void {
  const { system, code } = parseToken(value.trim());
  if (system) {
    builder.andWhere('o.code_system = :system AND o.code = :code', { system, code });
    return;
  }
  if (!matchesDisplay) {
    builder.andWhere('o.code = :code', { code });
    return;
  }
  const pattern = `%${code.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
  builder.andWhere('(o.code = :code OR o.display ILIKE :pattern)', { code, pattern });
}
