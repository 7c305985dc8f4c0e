/** Where an OpenAI-compatible `/embeddings` endpoint lives (OpenAI, Azure, Ollama, vLLM, a gateway). */
export interface EmbeddingsSettings {
  /** Base URL, e.g. `https://api.openai.com/v1`; `/embeddings` is appended. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  dimensions: number;
  /** How long one call may take before it counts as failed. */
  timeoutMs: number;
}

/** A provider that answered wrongly or not at all; the store logs it and carries on without vectors. */
export class EmbeddingsError extends Error {
  override readonly name = 'EmbeddingsError';
}

interface EmbeddingsResponse {
  data?: { index?: number; embedding?: unknown }[];
}

/** Calls `POST {baseUrl}/embeddings` and checks that every vector has the configured length. */
export class EmbeddingsClient {
  private readonly url: string;

  constructor(private readonly settings: EmbeddingsSettings) {
    this.url = `${settings.baseUrl.replace(/\/+$/, '')}/embeddings`;
  }

  get model(): string {
    return this.settings.model;
  }

  get dimensions(): number {
    return this.settings.dimensions;
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.settings.apiKey ? { authorization: `Bearer ${this.settings.apiKey}` } : {}),
        },
        body: JSON.stringify({ model: this.settings.model, input: texts, dimensions: this.settings.dimensions, encoding_format: 'float' }),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
    } catch (error) {
      throw new EmbeddingsError(`embeddings provider unreachable at ${this.url}: ${(error as Error).message}`);
    }
    if (!response.ok) throw new EmbeddingsError(`embeddings provider answered HTTP ${response.status} at ${this.url}`);
    const body = (await response.json().catch(() => ({}))) as EmbeddingsResponse;
    const data = body.data ?? [];
    if (data.length !== texts.length) throw new EmbeddingsError(`embeddings provider returned ${data.length} vectors for ${texts.length} texts`);
    const ordered = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return ordered.map(({ embedding }) => {
      if (
        !Array.isArray(embedding) ||
        embedding.length !== this.settings.dimensions ||
        !embedding.every((value) => typeof value === 'number' && Number.isFinite(value))
      ) {
        throw new EmbeddingsError(`embeddings provider returned a vector that is not ${this.settings.dimensions} numbers (check EMBEDDING_DIMENSIONS)`);
      }
      return embedding as number[];
    });
  }
}

/** pgvector's text form of a vector. */
export const toVectorLiteral = (vector: readonly number[]): string => `[${vector.join(',')}]`;
