// Runs in a worker thread, one per extraction, so that parsing a large PDF or DOCX never blocks the
// server's event loop and a run that overstays its time can be terminated outright.
// Plain JavaScript: a worker loads its file directly, without the TypeScript toolchain.
import { open } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';

/** @type {{ kind: 'text' | 'html' | 'pdf' | 'docx', path: string, maxChars: number, maxBytes: number }} */
const { kind, path, maxChars, maxBytes } = workerData;

async function readBytes(limit) {
  const file = await open(path);
  try {
    const { size } = await file.stat();
    const buffer = Buffer.alloc(Math.min(size, limit));
    await file.read(buffer, 0, buffer.length, 0);
    return buffer;
  } finally {
    await file.close();
  }
}

// Text needs at most 4 bytes a character; the rest would be cut anyway.
const readTextBytes = () => readBytes(Math.min(maxBytes, maxChars * 4));

async function extract() {
  switch (kind) {
    case 'text':
      return new TextDecoder('utf-8').decode(await readTextBytes());
    case 'html': {
      const { convert } = await import('html-to-text');
      return convert(new TextDecoder('utf-8').decode(await readTextBytes()), {
        wordwrap: false,
        selectors: [
          { selector: 'a', options: { ignoreHref: true } },
          { selector: 'img', format: 'skip' },
        ],
      });
    }
    case 'pdf': {
      const { getDocumentProxy, extractText } = await import('unpdf');
      const document = await getDocumentProxy(new Uint8Array(await readBytes(maxBytes)));
      const { text } = await extractText(document, { mergePages: true });
      return text;
    }
    case 'docx': {
      const { default: mammoth } = await import('mammoth');
      const { value } = await mammoth.extractRawText({ buffer: await readBytes(maxBytes) });
      return value;
    }
    default:
      throw new Error(`unknown extraction kind ${kind}`);
  }
}

extract().then(
  (text) => parentPort.postMessage({ text: text.length > maxChars ? text.slice(0, maxChars) : text }),
  (error) => parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) }),
);
