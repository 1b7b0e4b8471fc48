/** The last `limit` lines of a child's stdout+stderr, each also logged at debug level. */
export class OutputTail {
  readonly #lines: string[] = [];
  readonly #partial = new Map<string, string>();
  constructor(
    private readonly limit: number,
    private readonly onLine: (line: string) => void,
  ) {}

  push(stream: string, chunk: string): void {
    const lines = ((this.#partial.get(stream) ?? '') + chunk).split(/\r?\n/);
    // The last element is an unfinished line (or '' after a newline): keep it for next time.
    this.#partial.set(stream, lines.pop() ?? '');
    for (const line of lines) this.#add(line);
  }

  /** Flush unfinished lines, e.g. once the child has exited. */
  end(): void {
    for (const rest of this.#partial.values()) if (rest !== '') this.#add(rest);
    this.#partial.clear();
  }

  lines(): readonly string[] {
    return [...this.#lines];
  }

  #add(line: string): void {
    if (line.trim() === '') return;
    this.#lines.push(line);
    if (this.#lines.length > this.limit) this.#lines.shift();
    this.onLine(line);
  }
}
