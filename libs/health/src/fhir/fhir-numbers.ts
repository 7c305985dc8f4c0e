import type { InternalTypeSchema } from '@medplum/core';
import type { FhirProblem } from './fhir-validation.js';
import { medplumCore } from './medplum-core.js';
import type { InexactNumbers } from './number-literals.js';

/**
 * FHIR R4's whole-number types and their ranges, 32-bit (https://hl7.org/fhir/R4/datatypes.html#primitive):
 * a larger value is a decimal. The validator checks their sign but not their size. (integer64 is R5's.)
 */
const INTEGER_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  integer: [-2147483648, 2147483647],
  positiveInt: [1, 2147483647],
  unsignedInt: [0, 2147483647],
};

const keyTypesBySchema = new WeakMap<InternalTypeSchema, ReadonlyMap<string, string>>();

/**
 * The type of each JSON key an object of this type may have: `valueInteger` is an `integer`,
 * `component` an `ObservationComponent`, `_value` (a primitive's extensions) an `Element`.
 */
function keyTypes(schema: InternalTypeSchema): ReadonlyMap<string, string> {
  let types = keyTypesBySchema.get(schema);
  if (!types) {
    const byKey = new Map<string, string>();
    for (const [name, element] of Object.entries(schema.elements)) {
      for (const { code } of element.type) {
        const key = name.endsWith('[x]') ? name.slice(0, -3) + medplumCore().capitalize(code) : name;
        byKey.set(key, code);
        byKey.set(`_${key}`, 'Element');
      }
    }
    keyTypesBySchema.set(schema, (types = byKey));
  }
  return types;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Calls `visit` with each number below `value`, an object of `schema`'s type, with the type of its element and its path. */
function visitNumbers(value: Record<string, unknown>, schema: InternalTypeSchema, path: string, visit: (type: string, number: number, path: string) => void) {
  const types = keyTypes(schema);
  for (const [key, item] of Object.entries(value)) {
    const type = types.get(key);
    if (type === undefined) continue;
    (Array.isArray(item) ? item : [item]).forEach((one: unknown, index) => {
      const at = Array.isArray(item) ? `${path}.${key}[${index}]` : `${path}.${key}`;
      if (typeof one === 'number') return visit(type, one, at);
      // Contained resources and a Bundle's entries are typed by their resourceType.
      const schemaOfOne = isObject(one) ? medplumCore().tryGetDataType(type === 'Resource' ? String(one.resourceType) : type) : undefined;
      if (schemaOfOne) visitNumbers(one as Record<string, unknown>, schemaOfOne, at, visit);
    });
  }
}

/**
 * Numbers a resource would not keep as sent, by element: a whole number outside its FHIR type's
 * range (`valueInteger` 99999999999999999999, read as 1e20), and any number `inexact` has the
 * text of, which the stored 64-bit float changed (`0.12345678901234567890`). Paths start at
 * `prefix` (else the resource type), and so do those `inexact` is asked about. For a resource
 * the R4 validator passed: its numbers are in elements of numeric types.
 */
export function numberProblems(resource: Record<string, unknown>, prefix: string, inexact: InexactNumbers): FhirProblem[] {
  const resourceType = String(resource.resourceType);
  const schema = medplumCore().tryGetDataType(resourceType);
  const problems: FhirProblem[] = [];
  if (!schema) return problems;
  visitNumbers(resource, schema, prefix || resourceType, (type, number, path) => {
    const sent = inexact(path);
    const range = INTEGER_RANGES[type];
    if (range && (number < range[0] || number > range[1])) {
      problems.push({ path, message: `${sent ?? number} is out of range: a FHIR ${type} is from ${range[0]} to ${range[1]}` });
    } else if (sent !== undefined) {
      problems.push({ path, message: `${sent} cannot be stored exactly: it would read ${number} (a stored number keeps 15 significant digits)` });
    }
  });
  return problems;
}
