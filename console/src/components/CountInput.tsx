/**
 * The console's whole-number field (a limit, a weight, claims per window): a numeric input that
 * keeps what was typed as text, so the form can say what is wrong with it (the API judges the
 * range too, DESIGN.md §5).
 */
export function CountInput(props: {
  /** The least value offered (0 for a limit, 1 for a weight or claims). */
  min: number;
  max?: number;
  placeholder: string;
  label: string;
  value: string;
  onValue: (text: string) => void;
}) {
  return (
    <input
      class="limit-input"
      type="number"
      min={String(props.min)}
      max={props.max}
      step="1"
      inputMode="numeric"
      placeholder={props.placeholder}
      aria-label={props.label}
      value={props.value}
      onInput={(e) => props.onValue((e.target as HTMLInputElement).value)}
    />
  );
}
