/**
 * A group id as text, each character the look-alike rule marks shown as a marker (`⟨ZWSP⟩`,
 * `⟨U+0301⟩` in an id not in NFC), so `acme\u200B` never looks like `acme` (src/cli/visibleText.ts).
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
