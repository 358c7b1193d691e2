// A confirmation step in a native <dialog> (focus trapped, Escape cancels, focus returns to the
// button that opened it): used before uninstalling and before rotating a secret.
import type { ComponentChildren } from 'preact';
import { useRef } from 'preact/hooks';

export function ConfirmButton(props: {
  label: string;
  title: string;
  confirmLabel: string;
  children: ComponentChildren;
  danger?: boolean;
  disabled?: boolean;
  onConfirm(): void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const close = () => {
    dialog.current?.close();
    opener.current?.focus();
  };
  return (
    <>
      <button
        type="button"
        ref={opener}
        class={props.danger ? 'danger' : undefined}
        disabled={props.disabled}
        onClick={() => dialog.current?.showModal()}
      >
        {props.label}
      </button>
      <dialog ref={dialog} aria-labelledby={undefined} class="confirm" onCancel={() => opener.current?.focus()}>
        <h2>{props.title}</h2>
        <div>{props.children}</div>
        <div class="actions">
          <button type="button" onClick={close} autofocus>
            Cancel
          </button>
          <button
            type="button"
            class={props.danger ? 'danger' : 'primary'}
            onClick={() => {
              dialog.current?.close();
              props.onConfirm();
            }}
          >
            {props.confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}
