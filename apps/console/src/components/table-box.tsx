import type { ReactNode } from 'react';

/**
 * A table's box, which scrolls sideways on a narrow screen: a named region the keyboard can
 * reach (and scroll with the arrow keys), as a mouse or a finger can.
 */
export function TableBox({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-box" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
