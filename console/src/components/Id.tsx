/**
 * A group id as text, with every invisible character shown as a marker (`⟨ZWSP⟩`), so
 * `acme\u200B` never looks like `acme` (issue 13).
 */
import { idParts } from '../format';

export function Id(props: { value: string }) {
  return (
    <>
      {idParts(props.value).map((part, i) =>
        'text' in part ? (
          part.text
        ) : (
          <span class="inv" title={part.title} key={i}>
            {part.mark}
          </span>
        ),
      )}
    </>
  );
}
