/** A bench setting from the environment: a positive integer, the fallback when unset or empty; anything else stops the bench naming it. */
export function positiveInteger(name, fallback) {
  const value = Number(process.env[name] || fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${process.env[name]}"`);
  return value;
}
