const twoDigits = (value: number) => String(value).padStart(2, '0');

/**
 * A date-time in the reader's time zone as `2026-12-06 14:05`, unambiguous in every locale, with the
 * exact instant (UTC) on hover. Written by hand: the first `Intl.DateTimeFormat` a page makes costs
 * it some 70 ms, before its first rows show.
 */
export function When({ at, empty = '—' }: { at: string | Date | null | undefined; empty?: string }) {
  if (!at) return <span className="muted">{empty}</span>;
  const date = new Date(at);
  const shown = `${date.getFullYear()}-${twoDigits(date.getMonth() + 1)}-${twoDigits(date.getDate())} ${twoDigits(date.getHours())}:${twoDigits(date.getMinutes())}`;
  return (
    <time dateTime={date.toISOString()} title={date.toISOString()}>
      {shown}
    </time>
  );
}

/** How long ago, in the largest unit that fits ("3 min", "2 h", "5 d"). */
export function age(at: string | Date, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - new Date(at).getTime()) / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86400)} d`;
}

export function bytes(size: number): string {
  if (size < 1024) return `${size} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = size / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export function Json({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre tabIndex={0} aria-label={label}>
      <code>{JSON.stringify(value, null, 2)}</code>
    </pre>
  );
}
