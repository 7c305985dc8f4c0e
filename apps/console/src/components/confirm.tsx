import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

/**
 * A button that asks before it acts, in a modal `<dialog>` (focus kept inside, Escape closes).
 * With `typed`, the action waits until that exact text is typed: for what cannot be undone; with
 * `ready` false, until what the dialog asks for (a reason) is given.
 */
export function ConfirmButton({
  label,
  title,
  children,
  confirmLabel,
  typed,
  ready = true,
  danger = true,
  onConfirm,
}: {
  label: string;
  title: string;
  children?: ReactNode;
  confirmLabel?: string;
  typed?: string;
  ready?: boolean;
  danger?: boolean;
  onConfirm: () => Promise<unknown> | unknown;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const titleId = useId();
  const inputId = useId();

  // The dialog exists only while it is open: a list of a hundred rows holds a hundred buttons, not a hundred dialogs.
  useEffect(() => {
    if (open) dialog.current?.showModal();
  }, [open]);

  /** Closes through the dialog itself, which gives the focus back to the button that opened it. */
  const close = () => dialog.current?.close();

  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } catch {
      // The page shows what went wrong (its mutation's error); the dialog only closes.
    } finally {
      setBusy(false);
      close();
    }
  };

  return (
    <>
      <button type="button" className={danger ? 'danger' : undefined} onClick={() => setOpen(true)}>
        {label}
      </button>
      {open && (
        <dialog
          ref={dialog}
          aria-labelledby={titleId}
          onClose={() => {
            setOpen(false);
            setText('');
          }}
        >
          <h2 id={titleId}>{title}</h2>
          {children}
          {typed !== undefined && (
            <p>
              <label htmlFor={inputId}>
                Type <code>{typed}</code> to confirm
              </label>
              <input id={inputId} value={text} onChange={(event) => setText(event.target.value)} autoComplete="off" spellCheck={false} />
            </p>
          )}
          <div className="actions">
            <button
              type="button"
              className={danger ? 'danger solid' : 'primary'}
              disabled={busy || !ready || (typed !== undefined && text !== typed)}
              onClick={() => void confirm()}
            >
              {confirmLabel ?? label}
            </button>
            <button type="button" onClick={close}>
              Cancel
            </button>
          </div>
        </dialog>
      )}
    </>
  );
}
