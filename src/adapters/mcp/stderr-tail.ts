// A bounded tail of a child's stderr: complete lines are kept (the last `maxLines`, at most `maxBytes`
// in total) so /mcp can show why a server failed without the tail ever growing with a chatty server.

export interface StderrTailOptions {
  maxLines?: number;
  maxBytes?: number;
  /** Longest single line kept; longer lines are cut with an ellipsis. */
  maxLineLength?: number;
}

export class StderrTail {
  private readonly maxLines: number;
  private readonly maxBytes: number;
  private readonly maxLineLength: number;
  private readonly lines: string[] = [];
  /** Kept lines an earlier process of the same start said: a retry's identical line replaces it (once, newest). */
  private readonly earlier = new Set<string>();
  private bytes = 0;
  private partial = '';

  constructor(options: StderrTailOptions = {}) {
    this.maxLines = options.maxLines ?? 40;
    this.maxBytes = options.maxBytes ?? 8 * 1024;
    this.maxLineLength = options.maxLineLength ?? 1024;
  }

  /** Appends a chunk of output; returns the complete lines it finished (for live `debug` output). */
  write(chunk: string): string[] {
    const text = this.partial + chunk;
    const parts = text.split('\n');
    this.partial = parts.pop() ?? '';
    if (this.partial.length > this.maxLineLength) {
      // A line without a newline that keeps growing: keep it as a line now, so memory stays bounded.
      parts.push(this.partial);
      this.partial = '';
    }
    const finished: string[] = [];
    for (const raw of parts) {
      const line = this.clip(raw.replace(/\r$/, ''));
      if (line.length === 0) continue;
      this.add(line);
      finished.push(line);
    }
    return finished;
  }

  /** Adds one line verbatim (e.g. a note about ignored stdout output). */
  addLine(line: string): void {
    this.add(this.clip(line));
  }

  /** Forgets what was kept: a new start's stderr replaces the last one's. */
  clear(): void {
    this.lines.length = 0;
    this.earlier.clear();
    this.bytes = 0;
    this.partial = '';
  }

  /**
   * Another process of the same start (the other protocol era's try): what the earlier one said stays,
   * and a line both say is kept once, where the newer one said it (so the tail still ends with the cause).
   */
  nextProcess(): void {
    for (const line of this.lines) this.earlier.add(line);
    this.partial = '';
  }

  /** The kept lines joined with newlines, including an unfinished last line. */
  text(): string {
    const all = this.partial.length > 0 ? [...this.lines, this.clip(this.partial)] : this.lines;
    return all.join('\n');
  }

  /** The last complete line, if any: a short hint for error messages. */
  lastLine(): string | undefined {
    if (this.partial.trim().length > 0) return this.clip(this.partial);
    return this.lines[this.lines.length - 1];
  }

  private add(line: string): void {
    if (this.earlier.delete(line)) {
      const at = this.lines.indexOf(line);
      if (at >= 0) {
        this.lines.splice(at, 1);
        this.bytes -= Buffer.byteLength(line) + 1;
      }
    }
    this.lines.push(line);
    this.bytes += Buffer.byteLength(line) + 1;
    while (this.lines.length > this.maxLines || (this.bytes > this.maxBytes && this.lines.length > 1)) {
      const dropped = this.lines.shift()!;
      this.bytes -= Buffer.byteLength(dropped) + 1;
    }
  }

  private clip(line: string): string {
    return line.length > this.maxLineLength ? `${line.slice(0, this.maxLineLength)}…` : line;
  }
}
