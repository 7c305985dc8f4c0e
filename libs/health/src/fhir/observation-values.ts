import type { CodeableConcept, Observation, ObservationComponent, Quantity } from '@medplum/fhirtypes';

/** The value-bearing part shared by an Observation and each of its components. */
type ValueCarrier = Pick<
  Observation,
  | 'valueQuantity'
  | 'valueCodeableConcept'
  | 'valueString'
  | 'valueBoolean'
  | 'valueInteger'
  | 'valueRange'
  | 'valueRatio'
  | 'valueSampledData'
  | 'valueTime'
  | 'valueDateTime'
  | 'valuePeriod'
  | 'dataAbsentReason'
>;

const formatNumber = (value: number | undefined): string => (value === undefined ? '?' : String(value));

/** `72 /min`, `< 5 mg/dL`: the unit as written, else its UCUM code. */
export function renderQuantity(quantity: Quantity): string {
  const unit = quantity.unit ?? quantity.code;
  return [quantity.comparator, formatNumber(quantity.value), unit].filter((part) => part !== undefined && part !== '').join(' ');
}

export function renderConcept(concept: CodeableConcept): string | null {
  const coding = concept.coding?.find((entry) => entry.display || entry.code);
  return concept.text ?? coding?.display ?? coding?.code ?? null;
}

function renderOwnValue(carrier: ValueCarrier): string | null {
  if (carrier.valueQuantity) return renderQuantity(carrier.valueQuantity);
  if (carrier.valueCodeableConcept) return renderConcept(carrier.valueCodeableConcept);
  if (carrier.valueString !== undefined) return carrier.valueString;
  if (carrier.valueBoolean !== undefined) return carrier.valueBoolean ? 'yes' : 'no';
  if (carrier.valueInteger !== undefined) return String(carrier.valueInteger);
  if (carrier.valueRange) {
    const { low, high } = carrier.valueRange;
    if (low && high) {
      const sameUnit = (low.unit ?? low.code) === (high.unit ?? high.code);
      return sameUnit ? `${formatNumber(low.value)}–${renderQuantity(high)}` : `${renderQuantity(low)} – ${renderQuantity(high)}`;
    }
    if (low) return `≥ ${renderQuantity(low)}`;
    if (high) return `≤ ${renderQuantity(high)}`;
    return null;
  }
  if (carrier.valueRatio) {
    const { numerator, denominator } = carrier.valueRatio;
    return `${numerator ? renderQuantity(numerator) : '?'} / ${denominator ? renderQuantity(denominator) : '?'}`;
  }
  if (carrier.valuePeriod) return `${carrier.valuePeriod.start ?? '…'} – ${carrier.valuePeriod.end ?? '…'}`;
  if (carrier.valueDateTime !== undefined) return carrier.valueDateTime;
  if (carrier.valueTime !== undefined) return carrier.valueTime;
  if (carrier.valueSampledData) return `sampled data: ${carrier.valueSampledData.data ?? ''}`.trim();
  if (carrier.dataAbsentReason) return `absent (${renderConcept(carrier.dataAbsentReason) ?? 'no reason given'})`;
  return null;
}

/**
 * Components sharing one unit read as one value (`120/80 mmHg`, the way blood pressure is written);
 * otherwise each is named: `Systolic: 120 mmHg; Heart rate: 70 /min`.
 */
export function renderComponents(components: readonly ObservationComponent[]): string | null {
  if (components.length === 0) return null;
  const quantities = components.map((component) => component.valueQuantity);
  const units = new Set(quantities.map((quantity) => quantity && (quantity.unit ?? quantity.code)));
  if (quantities.every((quantity) => quantity?.value !== undefined && !quantity.comparator) && units.size === 1) {
    const [unit] = units;
    return `${quantities.map((quantity) => quantity!.value).join('/')}${unit ? ` ${unit}` : ''}`;
  }
  return components.map((component) => `${renderConcept(component.code) ?? 'component'}: ${renderOwnValue(component) ?? '—'}`).join('; ');
}

/** The observation's value as a person would say it; components when it has no single value of its own. */
export function renderObservationValue(observation: Observation): string | null {
  const own = renderOwnValue(observation);
  const parts = renderComponents(observation.component ?? []);
  if (own !== null && parts !== null) return `${own} (${parts})`;
  return own ?? parts;
}

/** When it happened clinically: effective[x] (a period's start, a timing's first event), else when it was issued. */
export function clinicalTime(observation: Observation): { effective: Date | null; issued: Date | null } {
  const effective =
    observation.effectiveDateTime ??
    observation.effectiveInstant ??
    observation.effectivePeriod?.start ??
    observation.effectivePeriod?.end ??
    observation.effectiveTiming?.event?.[0];
  return { effective: effective ? new Date(effective) : null, issued: observation.issued ? new Date(observation.issued) : null };
}
