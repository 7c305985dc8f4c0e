import type { Observation } from '@medplum/fhirtypes';
import type { ObservationComponentColumn, ObservationEntity } from '../entities/observation.entity.js';
import { clinicalTime, renderConcept, renderObservationValue, renderQuantity } from './observation-values.js';

type ObservationRow = Omit<ObservationEntity, 'createdAt' | 'subject'>;

/** Pulls the queried columns out of a validated Observation; the resource itself is kept whole. */
export function toObservationRow(id: string, subjectId: string, resource: Observation, storedAt: Date): ObservationRow {
  const coding = resource.code.coding?.find((entry) => entry.code) ?? resource.code.coding?.[0];
  const { effective, issued } = clinicalTime(resource);
  const components: ObservationComponentColumn[] | null = resource.component?.length
    ? resource.component.map((component) => ({
        code: component.code.coding?.find((entry) => entry.code)?.code ?? null,
        display: renderConcept(component.code),
        value: renderObservationValue(component as Observation),
      }))
    : null;
  return {
    id,
    subjectId,
    resource,
    codeSystem: coding?.system ?? null,
    code: coding?.code ?? null,
    display: renderConcept(resource.code),
    valueNumeric: resource.valueQuantity?.value ?? resource.valueInteger ?? null,
    valueUnit: resource.valueQuantity ? (resource.valueQuantity.unit ?? resource.valueQuantity.code ?? null) : null,
    valueText: resource.valueQuantity ? renderQuantity(resource.valueQuantity) : renderObservationValue({ ...resource, component: undefined }),
    components,
    effectiveAt: effective,
    issuedAt: issued,
    clinicalAt: effective ?? issued ?? storedAt,
  };
}
