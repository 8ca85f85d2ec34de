// The memory journal's bodies as bytes: one fixed-size cell per ring slot, in chunks of preallocated
// memory, instead of one heap string per kept delivery. A kept string survives the young generation's
// scavenges, is promoted and then marked and compacted with the old generation; bytes in a cell are
// never traced. A body too large for its cell (or not well-formed UTF-16) stays a string.

/** Bytes per cell: a typical PIX webhook body (≈ 300–500 bytes) fits; a larger one stays a string. */
export const cellBytes = 512;
/** Cells per chunk: memory is taken 64 KiB at a time, as the ring fills. */
const chunkCells = 128;

const encoder = new TextEncoder();
// The bytes are our own encoding of the text: decoded back exactly (a leading U+FEFF kept).
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

type WellFormed = { isWellFormed?: () => boolean };
// A runtime without String.prototype.isWellFormed keeps every body a string.
const wellFormed: (text: string) => boolean =
  typeof (String.prototype as WellFormed).isWellFormed === 'function'
    ? (text) => (text as unknown as Required<WellFormed>).isWellFormed()
    : () => false;

export class BodyCells {
  readonly #chunks: Uint8Array[] = [];
  /** Bytes held by each slot's cell; -1 when the slot's body is not in its cell. */
  readonly #lengths: Int32Array;

  constructor(slots: number) {
    this.#lengths = new Int32Array(slots).fill(-1);
  }

  /** Puts `body` in slot's cell; false (and the cell emptied) when it does not fit: the caller keeps the string. */
  put(slot: number, body: string): boolean {
    this.#lengths[slot] = -1;
    // A UTF-16 unit is at least one UTF-8 byte; lone surrogates would not survive the round trip.
    if (body.length > cellBytes || !wellFormed(body)) return false;
    const chunk = (this.#chunks[Math.floor(slot / chunkCells)] ??= new Uint8Array(chunkCells * cellBytes));
    const start = (slot % chunkCells) * cellBytes;
    const { read, written } = encoder.encodeInto(body, chunk.subarray(start, start + cellBytes));
    if (read < body.length) return false;
    this.#lengths[slot] = written;
    return true;
  }

  /** The body in slot's cell, or undefined when it is not there. */
  get(slot: number): string | undefined {
    const length = this.#lengths[slot]!;
    if (length < 0) return undefined;
    const start = (slot % chunkCells) * cellBytes;
    return decoder.decode(this.#chunks[Math.floor(slot / chunkCells)]!.subarray(start, start + length));
  }

  clear(slot: number): void {
    this.#lengths[slot] = -1;
  }
}
