// Types of writers.mjs, for the tests that import it.

export declare const fileBody: (id: number) => string;
export declare const uploadNumber: (filename: string) => number;

export interface Writers {
  /** Memory ids and file keys, in the order the server acknowledged them. */
  acknowledged: { memories: string[]; files: string[] };
  /** Answers and errors by kind (`remember 200`, `upload ECONNRESET`...). */
  outcomes: Map<string, number>;
  stop(): Promise<void>;
}

export declare function startWriters(options: { origin: string; bearer: string; connections: number }): Writers;
