import { connect } from 'node:net';
import { request, type IncomingHttpHeaders } from 'node:http';

/** One JSON-RPC message, as the server framed it on an SSE stream or as a JSON body. */
export type Message = Record<string, any>;

/**
 * A POST whose answer is read as it arrives, for exchanges that stay open (SSE): `next()` waits for
 * the next message, `ended` settles with whatever the exchange ended with. Built on node:http so
 * that the path goes out exactly as written (percent-encoded, absolute form).
 */
export interface OpenExchange {
  status: Promise<number>;
  headers: Promise<IncomingHttpHeaders>;
  next(): Promise<Message>;
  ended: Promise<Message[]>;
  abort(): void;
}

export function openExchange(url: URL, body: string, headers: Record<string, string>): OpenExchange {
  const messages: Message[] = [];
  const waiters: ((message: Message) => void)[] = [];
  let resolveStatus!: (status: number) => void;
  let resolveHeaders!: (headers: IncomingHttpHeaders) => void;
  let resolveEnded!: (messages: Message[]) => void;
  const status = new Promise<number>((resolve) => (resolveStatus = resolve));
  const responseHeaders = new Promise<IncomingHttpHeaders>((resolve) => (resolveHeaders = resolve));
  const ended = new Promise<Message[]>((resolve) => (resolveEnded = resolve));
  const push = (message: Message) => {
    const waiter = waiters.shift();
    if (waiter) waiter(message);
    else messages.push(message);
  };
  const all: Message[] = [];
  const outgoing = request(url, { method: 'POST', headers }, (response) => {
    resolveStatus(response.statusCode!);
    resolveHeaders(response.headers);
    let buffer = '';
    const sse = String(response.headers['content-type']).startsWith('text/event-stream');
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      buffer += chunk;
      if (!sse) return;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame.split('\n').find((line) => line.startsWith('data: '));
        if (data) {
          const message = JSON.parse(data.slice(6));
          all.push(message);
          push(message);
        }
      }
    });
    response.on('end', () => {
      if (!sse && buffer) {
        const message = JSON.parse(buffer);
        all.push(message);
        push(message);
      }
      resolveEnded(all);
    });
    response.on('error', () => resolveEnded(all));
  });
  outgoing.on('error', () => {
    resolveStatus(0);
    resolveEnded(all);
  });
  outgoing.end(body);
  return {
    status,
    headers: responseHeaders,
    ended,
    next: () => (messages.length ? Promise.resolve(messages.shift()!) : new Promise((resolve) => waiters.push(resolve))),
    abort: () => outgoing.destroy(),
  };
}

/** A whole exchange through node:http with the request target exactly as given (`/mc%70`, `http://host/mcp`). */
export function rawRequest(
  url: URL,
  target: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: url.hostname, port: url.port, method: options.method ?? 'POST', path: target, headers: options.headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, text }));
    });
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/**
 * The status line of a request written byte for byte on a socket, for targets and header values
 * node:http would not send. The socket is not half-closed: Node's server drops the answer of a
 * request whose client has ended its side before the answer is ready. `connection: close` ends it.
 */
export function socketStatus(url: URL, head: string, body = ''): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () =>
      socket.write(`${head}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`),
    );
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0)));
    socket.on('error', reject);
  });
}
