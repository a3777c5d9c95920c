// Newline-delimited text from a byte stream (stdout of a stdio server, a Unix socket).

import { StringDecoder } from 'node:string_decoder';

/** Splits a byte stream into lines (a trailing `\r` dropped, blank lines skipped). */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';

  /** The complete lines in what has arrived so far. */
  push(chunk: Buffer): string[] {
    this.partial += this.decoder.write(chunk);
    const lines: string[] = [];
    let newline = this.partial.indexOf('\n');
    while (newline !== -1) {
      const line = this.partial.slice(0, newline).replace(/\r$/, '');
      this.partial = this.partial.slice(newline + 1);
      if (line.trim().length > 0) lines.push(line);
      newline = this.partial.indexOf('\n');
    }
    return lines;
  }

  /** Characters waiting for their newline. */
  get pending(): number {
    return this.partial.length;
  }

  /** Drops the unfinished line. */
  reset(): void {
    this.partial = '';
  }

  /** The stream ended: the unfinished last line, if any. */
  end(): string | undefined {
    const rest = (this.partial + this.decoder.end()).trim();
    this.partial = '';
    return rest.length > 0 ? rest : undefined;
  }
}
