// A labelled read-only value with a Copy button (public endpoint, install link, signing secret).
import { useState } from 'preact/hooks';

let counter = 0;

export function CopyField(props: { label: string; value: string; secret?: boolean }) {
  const [id] = useState(() => `copy-${++counter}`);
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value);
      setCopied('Copied');
    } catch {
      const input = document.getElementById(id) as HTMLInputElement | null;
      input?.select();
      setCopied('Selected: press Ctrl+C (or ⌘C) to copy');
    }
  };
  return (
    <div class="copy-field">
      <label for={id}>{props.label}</label>
      <div class="copy-row">
        <input
          id={id}
          type="text"
          readOnly
          value={props.value}
          class={props.secret ? 'mono secret' : 'mono'}
          onFocus={(event) => (event.currentTarget as HTMLInputElement).select()}
        />
        <button type="button" onClick={copy}>
          Copy
        </button>
        <span class="copy-status" role="status">
          {copied ?? ''}
        </span>
      </div>
    </div>
  );
}
