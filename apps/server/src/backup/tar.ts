import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';

// A backup is a plain tar archive (POSIX ustar), so that `tar -tf` lists it and `tar -xf` unpacks it
// without this server. Only what backups hold is written and read: regular files, names of at most
// 100 bytes, no links, no extended headers.

const BLOCK = 512;
const NAME_BYTES = 100;

export interface TarEntry {
  name: string;
  size: number;
  modifiedAt: Date;
  /** The entry's bytes; exactly `size` of them. */
  body: () => Readable | Buffer;
}

/** A number as the zero-padded octal a ustar header field of `width` bytes holds, NUL-terminated. */
const octal = (value: number, width: number) =>
  `${Math.floor(value)
    .toString(8)
    .padStart(width - 1, '0')}\0`;

function header({ name, size, modifiedAt }: Omit<TarEntry, 'body'>): Buffer {
  const nameBytes = Buffer.from(name, 'utf8');
  if (nameBytes.length > NAME_BYTES) throw new Error(`Tar entry name over ${NAME_BYTES} bytes: ${name}`);
  const block = Buffer.alloc(BLOCK);
  nameBytes.copy(block, 0);
  block.write(octal(0o600, 8), 100, 'ascii');
  block.write(octal(0, 8), 108, 'ascii');
  block.write(octal(0, 8), 116, 'ascii');
  block.write(octal(size, 12), 124, 'ascii');
  block.write(octal(modifiedAt.getTime() / 1000, 12), 136, 'ascii');
  block.write('0', 156, 'ascii');
  block.write('ustar\0' + '00', 257, 'ascii');
  // The checksum is the sum of the header's bytes with its own field counted as spaces.
  block.fill(' ', 148, 156);
  const sum = block.reduce((total, byte) => total + byte, 0);
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

const padding = (size: number) => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);

/** The entries as one tar stream; each body is opened only when its turn comes. */
export function tarStream(entries: AsyncIterable<TarEntry> | Iterable<TarEntry>): Readable {
  async function* blocks() {
    for await (const entry of entries) {
      yield header(entry);
      const body = entry.body();
      let written = 0;
      for await (const chunk of Buffer.isBuffer(body) ? [body] : body) {
        written += (chunk as Buffer).length;
        yield chunk as Buffer;
      }
      // A file that changed size since it was listed would shift every later entry.
      if (written !== entry.size) throw new Error(`${entry.name} held ${written} bytes, not the ${entry.size} announced`);
      yield padding(entry.size);
    }
    yield Buffer.alloc(2 * BLOCK);
  }
  return Readable.from(blocks(), { objectMode: false });
}

/** An entry of an archive on disk: its name and size, and its bytes read on demand. */
export interface ArchivedEntry {
  name: string;
  size: number;
  read: () => Promise<Buffer>;
  stream: () => Readable;
}

/** The archive's file is not a tar archive this server wrote (or it was cut short). */
export class NotABackupError extends Error {}

/** The regular files of the tar archive at `path`, in order; fails on a header that does not check out. */
export async function* readTar(path: string): AsyncGenerator<ArchivedEntry> {
  const file = await open(path, 'r');
  try {
    const { size: archiveSize } = await file.stat();
    const block = Buffer.alloc(BLOCK);
    for (let offset = 0; ;) {
      if (offset + BLOCK > archiveSize) throw new NotABackupError(`${path} ends before the archive does: was it cut short?`);
      await file.read(block, 0, BLOCK, offset);
      if (block.every((byte) => byte === 0)) return;
      const stored = Number.parseInt(block.toString('ascii', 148, 156).replace(/\0.*$/s, '').trim(), 8);
      const sum = block.reduce((total, byte, index) => total + (index >= 148 && index < 156 ? 32 : byte), 0);
      if (stored !== sum) throw new NotABackupError(`${path} is not a tar archive (bad header at byte ${offset})`);
      const name = block.toString('utf8', 0, NAME_BYTES).replace(/\0.*$/s, '');
      const size = Number.parseInt(block.toString('ascii', 124, 136).replace(/\0.*$/s, '').trim() || '0', 8);
      const type = block.toString('ascii', 156, 157);
      const start = offset + BLOCK;
      if (start + size > archiveSize) throw new NotABackupError(`${path} ends inside ${name}: was it cut short?`);
      if (type === '0' || type === '\0') {
        yield {
          name,
          size,
          read: async () => {
            const bytes = Buffer.alloc(size);
            await file.read(bytes, 0, size, start);
            return bytes;
          },
          stream: () => (size === 0 ? Readable.from([]) : file.createReadStream({ start, end: start + size - 1, autoClose: false })),
        };
      }
      offset = start + size + padding(size).length;
    }
  } finally {
    await file.close();
  }
}
