/** `formgate move` will not go on: the message says why and what to do; nothing was changed. */
export class MoveRefusedError extends Error {
  constructor(
    message: string,
    /** The particulars, one line each (the tables that hold rows, the columns that differ). */
    readonly details: string[] = [],
  ) {
    super(message);
    this.name = 'MoveRefusedError';
  }
}
